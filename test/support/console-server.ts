import { loadConfig } from '../../src/config/load.js';
import type { ConsoleOptions } from '../../src/console/console-app.js';
import { LiveFeed } from '../../src/console/live-feed.js';
import { ConsoleKeys } from '../../src/console/session.js';
import type { Database } from '../../src/db/client.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import type { Logger } from '../../src/log.js';

/**
 * serve's HTTP listener (ops endpoints and the console) in the test's process, on a free
 * port, over a test database: what the console's HTTP tests run against.
 */
export async function startConsoleServer(
  db: Database,
  options: {
    token: string;
    logger: Logger;
    /** More settings (CONSOLE_HOSTS, TRUST_PROXY…); HTTP_PORT and CONSOLE_TOKEN are set. */
    env?: Record<string, string>;
    keys?: ConsoleKeys;
    throttle?: ConsoleOptions['throttle'];
  },
): Promise<{ http: RunningHttpServer; live: LiveFeed; port: number }> {
  const { logger } = options;
  const config = loadConfig({ ...options.env, HTTP_PORT: '0', CONSOLE_TOKEN: options.token });
  const live = new LiveFeed(db, { logger });
  const keys = options.keys ?? new ConsoleKeys(options.token);
  const http = await startOpsServer({
    db,
    config,
    logger,
    workerId: 'test-worker',
    console: {
      db,
      config,
      logger,
      keys,
      live,
      ...(options.throttle ? { throttle: options.throttle } : {}),
    },
  });
  return { http, live, port: Number(new URL(http.url).port) };
}
