import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../log.js';
import { createHostServer } from './host-server.js';
import { openGateway, type OpenGatewayOptions } from './open-gateway.js';

export interface StdioGatewayOptions extends Omit<OpenGatewayOptions, 'onUpstreamClosed'> {
  logger: Logger;
  signal: AbortSignal;
}

/**
 * `mcp-drift gateway NAME` over stdio: one host on this process's stdin/stdout, one
 * session to the upstream. Returns when the host closes stdin, the upstream goes away or
 * the signal is aborted; stdout carries nothing but the protocol.
 */
export async function runStdioGateway(options: StdioGatewayOptions): Promise<void> {
  const { logger } = options;
  let upstreamClosed: () => void = () => undefined;
  const upstreamGone = new Promise<void>((resolve) => (upstreamClosed = resolve));
  const gateway = await openGateway({ ...options, onUpstreamClosed: () => upstreamClosed() });
  try {
    const hostGone = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    const aborted = new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const handle = serveStdio(
      () =>
        createHostServer(gateway, {
          onDecision: (decision, tool) =>
            logger.debug({ server: options.spec.name, tool, decision }, 'gateway: decision'),
        }),
      { onerror: (error) => logger.debug({ err: error }, 'gateway: host connection error') },
    );
    await Promise.race([hostGone, aborted, upstreamGone]);
    await handle.close().catch(() => undefined);
  } finally {
    gateway.stop();
    await gateway.upstream.close();
  }
}
