import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../log.js';
import { openSession, type ConnectSpec, type SessionOptions } from '../mcp/index.js';
import type { GatewayPolicy } from '../vocabulary/gateway-policies.js';
import type { ApprovedSource } from './approved-source.js';
import { Gateway } from './gateway.js';
import { createHostServer } from './host-server.js';

export interface StdioGatewayOptions {
  spec: ConnectSpec;
  session: Omit<SessionOptions, 'onToolsListChanged' | 'onClose'>;
  source: ApprovedSource;
  policy: GatewayPolicy;
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
  let gateway: Gateway | null = null;
  let upstreamClosed: () => void = () => undefined;
  const upstreamGone = new Promise<void>((resolve) => (upstreamClosed = resolve));
  const upstream = await openSession(options.spec, {
    ...options.session,
    onToolsListChanged: () => void gateway?.refresh(),
    onClose: () => upstreamClosed(),
  });
  try {
    if (upstream.era === '2026') {
      // The 2026 era sends change events only on a listen; the poll covers a dropped one.
      await upstream.client.listen({ toolsListChanged: true }).catch((error: unknown) => {
        logger.debug({ err: error }, 'gateway: upstream listen failed; polling only');
      });
    }
    gateway = new Gateway({
      upstream,
      source: options.source,
      policy: options.policy,
      onError: (error) => logger.warn({ err: error }, 'gateway: refresh failed'),
      onRules: (rules) =>
        logger.debug(
          { server: options.spec.name, rules: rules.rules.map((r) => `${r.name}:${r.action}`) },
          'gateway: rules',
        ),
    });
    await gateway.start();
    const hostGone = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    const aborted = new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const served = gateway;
    const handle = serveStdio(
      () =>
        createHostServer(served, {
          onDecision: (decision, tool) =>
            logger.debug({ server: options.spec.name, tool, decision }, 'gateway: decision'),
        }),
      { onerror: (error) => logger.debug({ err: error }, 'gateway: host connection error') },
    );
    await Promise.race([hostGone, aborted, upstreamGone]);
    await handle.close().catch(() => undefined);
  } finally {
    gateway?.stop();
    await upstream.close();
  }
}
