import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { Metrics } from './metrics.js';
import { ReadinessCheck } from './readiness.js';
import { describeDatabaseError } from './time-limit.js';

/**
 * The endpoint operators and orchestrators use (HTTP_HOST:HTTP_PORT):
 * `/healthz` 200 while the process runs; `/readyz` 200 when the database answers and is
 * migrated, else 503, with `warnings` (such as alerts that reach nobody) that do not make
 * it unready; `/metrics` the Prometheus figures, or 503 when the database does not answer
 * in time. Nothing here stops the service: an outage is reported, not fatal.
 */
export function startOpsServer(options: {
  db: Database;
  config: Config;
  logger: Logger;
  workerId: string;
  /** Problems worth an operator's attention that leave the service ready. */
  warnings?: () => Promise<string[]>;
}): Promise<RunningHttpServer> {
  const { db, config, logger, workerId } = options;
  const log = logger.child({ component: 'http' });
  const readiness = new ReadinessCheck(db, { logger: log });
  const metrics = new Metrics(db, { workerId });
  const json = (status: number, body: object) => ({
    status,
    body: `${JSON.stringify(body)}\n`,
    contentType: 'application/json',
  });
  return startHttpServer({
    host: config.HTTP_HOST,
    port: config.HTTP_PORT,
    logger: log,
    routes: {
      '/healthz': async () => json(200, { status: 'ok' }),
      '/readyz': async () => {
        const result = await readiness.check();
        if (!result.ready) return json(503, { status: 'not ready', reason: result.reason });
        const warnings = await (options.warnings?.() ?? Promise.resolve([])).catch(() => []);
        return json(200, warnings.length > 0 ? { status: 'ready', warnings } : { status: 'ready' });
      },
      '/metrics': async () => {
        try {
          return { status: 200, body: await metrics.scrape(), contentType: metrics.contentType };
        } catch (error) {
          // Every scrape of an outage would repeat it; readiness logs the outage once.
          log.debug({ err: error }, 'metrics scrape failed');
          return { status: 503, body: `database unavailable: ${describeDatabaseError(error)}\n` };
        }
      },
    },
  });
}
