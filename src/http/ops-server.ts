import { Hono } from 'hono';
import type { Config } from '../config/schema.js';
import { mountConsole, type ConsoleOptions } from '../console/console-app.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { Metrics } from './metrics.js';
import { ReadinessCheck } from './readiness.js';
import { describeDatabaseError } from './time-limit.js';

const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

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
  /** Problems worth an operator's attention that leave the service ready. */
  warnings?: () => Promise<string[]>;
  console?: ConsoleOptions;
}): Hono {
  const { db, logger, workerId } = options;
  const readiness = new ReadinessCheck(db, { logger });
  const metrics = new Metrics(db, { workerId });
  const app = new Hono();

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

export function startOpsServer(options: {
  db: Database;
  config: Config;
  logger: Logger;
  workerId: string;
  warnings?: () => Promise<string[]>;
  console?: ConsoleOptions;
}): Promise<RunningHttpServer> {
  const logger = options.logger.child({ component: 'http' });
  const app = opsApp({ ...options, logger });
  return startHttpServer({
    host: options.config.HTTP_HOST,
    port: options.config.HTTP_PORT,
    logger,
    fetch: (request) => app.fetch(request),
  });
}
