import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDispatcher } from '../delivery/create-dispatcher.js';
import {
  alertDestinationProblems,
  channelsInUse,
  warnWhenAlertsReachNobody,
} from '../alerts/destination-check.js';
import { CHANNELS } from '../vocabulary/channels.js';
import { setLogger as setCronLogger } from 'node-cron';
import {
  loginLinkLine,
  removeConsoleAddress,
  writeConsoleAddress,
} from '../console/console-address.js';
import { consoleToken } from '../console/console-token.js';
import { HistoryPruner } from '../changes/retention.js';
import { LiveFeed } from '../console/live-feed.js';
import { ConsoleKeys } from '../console/session.js';
import { openDatabase } from '../db/client.js';
import { startOpsServer } from '../http/ops-server.js';
import { cronLogger, type Logger } from '../log.js';
import { warnMadePrivate } from '../private-files.js';
import { listServers } from '../registry/servers-repo.js';
import { Supervisor } from '../watch/supervisor.js';
import type { CommandRun } from './command-run.js';
import { printLine } from './output.js';
import { HeapCompactor, keepHeapNearLiveSize } from './serve-heap.js';

/**
 * What the parts of serve get to stop, of run-cli's 5 s shutdown deadline; the database's
 * close takes the rest (it abandons queries still pending after 1 s).
 */
const STOP_GRACE_MS = 3_500;

/**
 * Stops the parts together, so that one waiting out its own grace (a dispatch round mid-send,
 * a probe mid-connect, a tick on a database just back from an outage) does not spend the
 * others' share of the deadline; one still stopping after `graceMs` is named and left
 * behind, and the database's close ends what it was waiting on.
 */
async function stopWithin(
  graceMs: number,
  logger: Logger,
  parts: Record<string, () => Promise<void>>,
): Promise<void> {
  const pending = new Set(Object.keys(parts));
  const stops = Object.entries(parts).map(async ([name, stop]) => {
    try {
      await stop();
    } catch (error) {
      logger.warn({ err: error, part: name }, 'could not stop cleanly');
    } finally {
      pending.delete(name);
    }
  });
  const grace = new AbortController();
  const timedOut = await Promise.race([
    Promise.all(stops).then(() => false),
    sleep(graceMs, true, { signal: grace.signal }),
  ]);
  grace.abort();
  if (timedOut) logger.warn({ parts: [...pending] }, 'still stopping; closing the database anyway');
}

/**
 * Runs the service until SIGINT/SIGTERM (run-cli.ts enforces the shutdown deadline). The
 * database is opened in sharing mode: on the embedded database, CLI commands reach it
 * through a unix socket while this runs.
 */
export async function serveCommand(run: CommandRun): Promise<void> {
  const ctx = await run.context({ quiet: false });
  const logger = await ctx.logger();
  keepHeapNearLiveSize();
  const handle = await openDatabase({
    databaseUrl: ctx.config.DATABASE_URL,
    home: ctx.config.MCP_DRIFT_HOME,
    share: true,
  });
  if (handle.madePrivate > 0)
    warnMadePrivate(logger, ctx.config.MCP_DRIFT_HOME, handle.madePrivate);
  const compactor = new HeapCompactor(logger);
  /** Where the console answers, once console-url may be told (console-address.ts). */
  let consoleUrl: string | undefined;
  try {
    const supervisor = new Supervisor({
      db: handle.db,
      config: ctx.config,
      env: ctx.env,
      logger,
      soleWorker: handle.backend === 'embedded',
      onSessionBurst: (sessions) => compactor.afterBurst(sessions),
    });
    setCronLogger(cronLogger(logger));
    const token = consoleToken(ctx.config);
    if (token.homeMadePrivate > 0) {
      warnMadePrivate(logger, ctx.config.MCP_DRIFT_HOME, token.homeMadePrivate);
    }
    if (token.madePrivate) {
      logger.warn(
        { file: token.file },
        'the console token file was readable by others; it is 0600 now',
      );
    }
    const live = new LiveFeed(handle.db, { logger: logger.child({ component: 'console' }) });
    const keys = new ConsoleKeys(token.value);
    // Health, metrics and the console: up before "mcp-drift serving", whose line carries its URL.
    const http = await startOpsServer({
      db: handle.db,
      config: ctx.config,
      logger,
      workerId: supervisor.worker.id,
      warnings: () => alertDestinationProblems(handle.db, ctx.config),
      console: {
        db: handle.db,
        config: ctx.config,
        logger: logger.child({ component: 'console' }),
        keys,
        live,
      },
    });
    live.start();
    const dispatcher = createDispatcher(handle.db, ctx.config, logger);
    const registered = await listServers(handle.db);
    // A login link on stdout, before the line tools wait for: a one-time code, never the
    // token, so neither the log nor a browser's history keeps anything that lets one in.
    printLine(loginLinkLine(http.url, keys.loginCode(), token.file));
    writeConsoleAddress(ctx.config, http.url);
    consoleUrl = http.url;
    const enabled = registered.filter((server) => server.enabled).length;
    const inUse = await channelsInUse(handle.db, ctx.config).catch(() => CHANNELS);
    // The channels that have somewhere to send; all run (a server's own --slack needs none).
    const alerts = Object.fromEntries(
      Object.entries(dispatcher.destination).filter(([channel]) =>
        (inUse as readonly string[]).includes(channel),
      ),
    );
    logger.info(
      {
        database: handle.location,
        backend: handle.backend,
        servers: registered.length,
        enabled,
        worker: supervisor.worker.id,
        pid: process.pid,
        http: http.url,
        // Where the token is kept, never the token (the login link went to stdout).
        console: { url: `${http.url}/`, token: token.file ?? 'CONSOLE_TOKEN' },
        alerts,
        headline:
          `mcp-drift serving ${registered.length} ${registered.length === 1 ? 'server' : 'servers'} ` +
          `(${enabled} enabled) at ${http.url}; ${handle.backend} database ${handle.location}; ` +
          `alerts: ${
            Object.keys(alerts).length === 0
              ? 'none configured'
              : Object.entries(alerts)
                  .map(([channel, how]) => `${channel} (${how})`)
                  .join(', ')
          }`,
      },
      'mcp-drift serving',
    );
    await warnWhenAlertsReachNobody(handle.db, ctx.config, logger);
    const pruner = new HistoryPruner(handle.db, {
      logger: logger.child({ component: 'retention' }),
      historyDays: ctx.config.HISTORY_DAYS,
    });
    supervisor.start();
    dispatcher.start();
    pruner.start();
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    logger.info('shutting down');
    live.stop();
    await stopWithin(STOP_GRACE_MS, logger, {
      retention: () => pruner.stop(),
      http: () => http.close(),
      watching: () => supervisor.stop(),
      alerts: () => dispatcher.stop(),
    });
  } finally {
    if (consoleUrl !== undefined) removeConsoleAddress(ctx.config, consoleUrl);
    compactor.stop();
    await handle.close();
  }
  logger.info('stopped');
}
