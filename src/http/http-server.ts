import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { DriftError } from '../errors.js';
import type { Logger } from '../log.js';
import { describePortHolder } from './port-holder.js';

/** Answers one request (a Hono app's `fetch`); a thrown error becomes a 500. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface RunningHttpServer {
  /** Where it listens, e.g. http://127.0.0.1:8464 (the bound port when HTTP_PORT is 0). */
  url: string;
  /** Idempotent; ends open keep-alive connections too, so shutdown does not wait on them. */
  close(): Promise<void>;
}

/** Why listen() failed, in words that say which setting to change. */
const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'this user may not listen on that port',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  ENOTFOUND: 'the host name does not resolve',
};

/**
 * node:http serving a fetch handler (Hono's app.fetch, through @hono/node-server). Failing
 * to listen is a configuration problem (exit 2), reported with the address tried, not a
 * crash.
 */
export async function startHttpServer(options: {
  host: string;
  port: number;
  fetch: FetchHandler;
  logger: Logger;
}): Promise<RunningHttpServer> {
  const { host, port, logger } = options;
  const listener = getRequestListener((request) => options.fetch(request), {
    // The handler answers its own errors; this is for what escapes it (a broken stream).
    errorHandler: (error) => {
      logger.error({ err: error }, 'http request failed');
      return new Response('internal error\n', {
        status: 500,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      });
    },
  });
  const server = createServer((request, response) => void listener(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      let problem = LISTEN_PROBLEMS[error.code ?? ''] ?? error.message;
      if (error.code === 'EADDRINUSE' && port !== 0) {
        const holder = describePortHolder(port);
        if (holder) problem += ` by ${holder}`;
      }
      reject(
        new DriftError(
          'CONFIG_INVALID',
          `cannot listen on ${hostPort(host, port)} for health and metrics: ${problem}; ` +
            'set HTTP_PORT to a free port (0 picks one) or HTTP_HOST to an address of this machine',
          { cause: error },
        ),
      );
    });
    server.listen(port, host, () => resolve());
  });
  // After a successful listen, a server error is not expected; log it rather than crash.
  server.on('error', (error) => logger.error({ err: error }, 'http server error'));
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostPort(address.address, address.port)}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
