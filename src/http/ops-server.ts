import { Hono } from 'hono';
import type { Metric } from 'prom-client';
import { bodyLimit } from 'hono/body-limit';
import type { Config } from '../config/schema.js';
import { mountConsole, type ConsoleOptions } from '../console/console-app.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { allowedNames, hostAllowList } from './host-allowlist.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { Metrics } from './metrics.js';
import { ReadinessCheck } from './readiness.js';
import { describeDatabaseError } from '../time-limit.js';

const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/**
 * The largest request body any route takes: the console's forms and JSON are a few hundred
 * bytes. Counted while the body streams in (a declared Content-Length over it is refused
 * before reading), so an endless upload costs at most this much memory.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** Every answer of the ops endpoints is fresh: an orchestrator must never read a cached one. */
function plain(status: number, body: string, contentType = 'text/plain; charset=utf-8'): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': contentType, 'cache-control': 'no-store' },
  });
}

const json = (status: number, body: object) =>
  plain(status, `${JSON.stringify(body)}\n`, 'application/json');

/**
 * The endpoint operators and orchestrators use (HTTP_HOST:HTTP_PORT):
 * `/healthz` 200 while the process runs; `/readyz` 200 when the database answers and is
 * migrated, else 503, with `warnings` (such as alerts that reach nobody) that do not make
 * it unready; `/metrics` the Prometheus figures, or 503 when the database does not answer
 * in time. These three need no credentials. With `console`, the operator console is served
 * beside them (src/console/), every route of it behind the console token. Nothing here
 * stops the service: an outage is reported, not fatal.
 */
export function opsApp(options: {
  db: Database;
  logger: Logger;
  workerId: string;
  /** Host names answered besides IP literals and `localhost` (host-allowlist.ts). */
  hosts: ReadonlySet<string>;
  /** Problems worth an operator's attention that leave the service ready. */
  warnings?: () => Promise<string[]>;
  console?: ConsoleOptions;
  /** serve's gateway over HTTP at /gateway/NAME/mcp (docs/gateway.md), and its counters. */
  gateways?: GatewayRoutes;
}): Hono {
  const { db, logger, workerId } = options;
  const readiness = new ReadinessCheck(db, { logger });
  const metrics = new Metrics(db, { workerId, extra: options.gateways?.metrics ?? [] });
  const app = new Hono();

  // Before any route, the ops endpoints included: a rebound page must not read /metrics.
  app.use('*', hostAllowList(options.hosts));
  // MCP bodies (tool arguments) may be larger: the gateway's handlers cap them at 4 MiB.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => plain(413, `request body too large: at most ${MAX_BODY_BYTES} bytes\n`),
  });
  app.use('*', (c, next) => (c.req.path.startsWith('/gateway/') ? next() : limitBody(c, next)));
  const gateways = options.gateways;
  if (gateways) {
    app.all('/gateway/:name/mcp', (c) => gateways.fetch(c.req.param('name'), c.req.raw));
  }

  // GET routes answer HEAD too (Hono runs the GET handler and drops the body).
  app.get('/healthz', () => json(200, { status: 'ok' }));
  app.get('/readyz', async () => {
    const result = await readiness.check();
    if (!result.ready) return json(503, { status: 'not ready', reason: result.reason });
    const warnings = await (options.warnings?.() ?? Promise.resolve([])).catch(() => []);
    return json(200, warnings.length > 0 ? { status: 'ready', warnings } : { status: 'ready' });
  });
  app.get('/metrics', async () => {
    try {
      return plain(200, await metrics.scrape(), metrics.contentType);
    } catch (error) {
      // Every scrape of an outage would repeat it; readiness logs the outage once.
      logger.debug({ err: error }, 'metrics scrape failed');
      return plain(503, `database unavailable: ${describeDatabaseError(error)}\n`);
    }
  });
  for (const path of OPS_PATHS) {
    app.all(path, () => {
      const answer = plain(405, 'method not allowed\n');
      answer.headers.set('allow', 'GET, HEAD');
      return answer;
    });
  }

  if (options.console) mountConsole(app, options.console);

  app.notFound(() => plain(404, 'not found\n'));
  app.onError((error, c) => {
    logger.error({ err: error, path: c.req.path }, 'http request failed');
    return plain(500, 'internal error\n');
  });
  return app;
}

/** What the listener needs of serve's HTTP gateway (src/gateway/http-gateway.ts). */
export interface GatewayRoutes {
  fetch(name: string, request: Request): Promise<Response>;
  metrics: Metric[];
}

export function startOpsServer(options: {
  gateways?: GatewayRoutes;
  db: Database;
  config: Config;
  logger: Logger;
  workerId: string;
  warnings?: () => Promise<string[]>;
  console?: ConsoleOptions;
}): Promise<RunningHttpServer> {
  const logger = options.logger.child({ component: 'http' });
  const hosts = allowedNames(options.config.HTTP_HOST, options.config.CONSOLE_HOSTS);
  const app = opsApp({ ...options, logger, hosts });
  return startHttpServer({
    host: options.config.HTTP_HOST,
    port: options.config.HTTP_PORT,
    logger,
    fetch: (request) => app.fetch(request),
  });
}
