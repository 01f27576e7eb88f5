import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DriftError } from '../errors.js';
import type { Logger } from '../log.js';
import { describePortHolder } from './port-holder.js';

export interface HttpAnswer {
  status: number;
  body: string;
  contentType?: string;
}

/** Answers one GET (or HEAD) of a path; a thrown error becomes a 500. */
export type Route = () => Promise<HttpAnswer>;

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
 * A small HTTP server with fixed GET routes. Failing to listen is a configuration problem
 * (exit 2), reported with the address tried, not a crash.
 */
export async function startHttpServer(options: {
  host: string;
  port: number;
  routes: Record<string, Route>;
  logger: Logger;
}): Promise<RunningHttpServer> {
  const { host, port, routes, logger } = options;
  const server = createServer((request, response) => {
    void answer(request, response, routes).catch((error: unknown) => {
      logger.error({ err: error, path: request.url }, 'http request failed');
      if (!response.headersSent) send(request, response, { status: 500, body: 'internal error\n' });
      else response.destroy();
    });
  });
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

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  routes: Record<string, Route>,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  if (!route) {
    send(request, response, { status: 404, body: 'not found\n' });
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    send(request, response, { status: 405, body: 'method not allowed\n' });
  } else {
    send(request, response, await route());
  }
}

function send(request: IncomingMessage, response: ServerResponse, answer: HttpAnswer): void {
  response.writeHead(answer.status, {
    'content-type': answer.contentType ?? 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(request.method === 'HEAD' ? undefined : answer.body);
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
