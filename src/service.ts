import { setLogger as setCronLogger } from 'node-cron';
import {
  alertDestinationProblems,
  channelsInUse,
  warnWhenAlertsReachNobody,
} from './alerts/destination-check.js';
import { HistoryPruner } from './changes/retention.js';
import { readEnvironment, type Environment } from './config/load.js';
import type { Config } from './config/schema.js';
import { consoleToken } from './console/console-token.js';
import { LiveFeed } from './console/live-feed.js';
import { ConsoleKeys } from './console/session.js';
import type { DatabaseHandle } from './db/client.js';
import { createDispatcher } from './delivery/create-dispatcher.js';
import type { DispatcherOptions } from './delivery/dispatcher.js';
import { HttpGateways } from './gateway/http-gateway.js';
import { gatewayDecisionCounter } from './gateway/gateway-metrics.js';
import { startOpsServer } from './http/ops-server.js';
import { cronLogger, type Logger } from './log.js';
import { SpawnHelper } from './mcp/index.js';
import { sleep, STOP_GRACE_MS } from './loop.js';
import { warnMadePrivate } from './private-files.js';
import { listServers } from './registry/servers-repo.js';
import { ServiceEvents } from './service-events.js';
import { CHANNELS } from './vocabulary/channels.js';
import { Supervisor } from './watch/supervisor.js';

/*
 * The service's composition root (docs/architecture.md, The service entry): the watch
 * supervisor, the alert dispatchers, history retention, and the HTTP listener with health,
 * metrics and the console. `serve` is a thin command around it; tests start it in process.
 */

export interface ServiceOptions {
  config: Config;
  /** Where `${VAR}` references of registrations resolve; default the environment and .env. */
  env?: Environment;
  /** An open database; the service never closes it (its opener does, after stop()). */
  db: DatabaseHandle;
  logger: Logger;
  /** Called when a burst of held-session starts is over (serve compacts its heap). */
  onSessionBurst?: (sessions: number) => void;
  /**
   * Called once the console answers, before the "mcp-drift serving" line: serve prints the
   * login link and writes the console address here.
   */
  onListening?: (console: ConsoleAccess) => void;
  /** Tests' knobs: the supervisor's tick and the dispatchers' poll. */
  tickMs?: number;
  dispatcher?: Partial<DispatcherOptions>;
  /** The pruner's first pass, after start (default a minute). */
  pruneFirstDelayMs?: number;
}

export interface ConsoleAccess {
  /** http://host:port of the listener (the console is at `${url}/`). */
  url: string;
  /** A one-time login code, never the token. */
  loginCode: string;
  /** The token's file, or null when it came from CONSOLE_TOKEN. */
  tokenFile: string | null;
}

export interface RunningService {
  readonly events: ServiceEvents;
  readonly addresses: { http: string };
  readonly workerId: string;
  /** A fresh one-time login code for the console. */
  loginCode(): string;
  /** Idempotent; stops every part within the stop grace (loop.ts) and resolves. */
  stop(): Promise<void>;
}

/**
 * Starts every part of the service and resolves once it is serving: the listener answers
 * and the loops run. Before it resolves, nothing is left running on a failure.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  const { db, backend, location } = options.db;
  const env = options.env ?? readEnvironment();
  const events = new ServiceEvents();
  // Forking serve itself for each stdio server held its loop (spawn-helper.ts).
  const spawner = new SpawnHelper();
  const supervisor = new Supervisor({
    db,
    config,
    env,
    logger,
    spawn: spawner.spawn,
    soleWorker: backend === 'embedded',
    onSessionBurst: options.onSessionBurst,
    events,
    tickMs: options.tickMs,
  });
  setCronLogger(cronLogger(logger));
  const token = consoleToken(config);
  if (token.homeMadePrivate > 0)
    warnMadePrivate(logger, config.MCP_DRIFT_HOME, token.homeMadePrivate);
  if (token.madePrivate) {
    logger.warn(
      { file: token.file },
      'the console token file was readable by others; it is 0600 now',
    );
  }
  const consoleLogger = logger.child({ component: 'console' });
  const live = new LiveFeed(db, { logger: consoleLogger });
  const keys = new ConsoleKeys(token.value);
  // Health, metrics and the console: up before "mcp-drift serving", whose line carries its URL.
  const decisions = gatewayDecisionCounter();
  const gateways = new HttpGateways({
    db,
    config,
    env,
    logger: logger.child({ component: 'gateway' }),
    onDecision: (server, decision) => decisions.inc({ server, decision }),
  });
  // An upstream change the supervisor recorded: the gateway decides again at once.
  const offChanges = events.on((event) => {
    if (event.kind === 'change-recorded') gateways.refresh(event.server);
  });
  const http = await startOpsServer({
    gateways: { fetch: (name, request) => gateways.fetch(name, request), metrics: [decisions] },
    db,
    config,
    logger,
    workerId: supervisor.worker.id,
    warnings: () => alertDestinationProblems(db, config),
    console: { db, config, logger: consoleLogger, keys, live },
  });
  const dispatcher = createDispatcher(db, config, logger, options.dispatcher, events);
  const pruner = new HistoryPruner(db, {
    logger: logger.child({ component: 'retention' }),
    historyDays: config.HISTORY_DAYS,
    firstDelayMs: options.pruneFirstDelayMs,
  });
  live.start();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      live.stop();
      await stopWithin(STOP_GRACE_MS, logger, {
        retention: () => pruner.stop(),
        http: () => http.close(),
        gateways: () => {
          offChanges();
          return gateways.stop();
        },
        // The helper kills what the watchers left running when it goes.
        watching: () => supervisor.stop().finally(() => spawner.stop()),
        alerts: () => dispatcher.stop(),
      });
    })());
  try {
    const registered = await listServers(db);
    options.onListening?.({ url: http.url, loginCode: keys.loginCode(), tokenFile: token.file });
    const enabled = registered.filter((server) => server.enabled).length;
    const inUse = await channelsInUse(db, config).catch(() => CHANNELS);
    // The channels that have somewhere to send; all run (a server's own --slack needs none).
    const alerts = Object.fromEntries(
      Object.entries(dispatcher.destination).filter(([channel]) =>
        (inUse as readonly string[]).includes(channel),
      ),
    );
    logger.info(
      {
        database: location,
        backend,
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
          `(${enabled} enabled) at ${http.url}; ${backend} database ${location}; ` +
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
    await warnWhenAlertsReachNobody(db, config, logger);
  } catch (error) {
    await stop();
    throw error;
  }
  supervisor.start();
  dispatcher.start();
  pruner.start();
  return {
    events,
    addresses: { http: http.url },
    workerId: supervisor.worker.id,
    loginCode: () => keys.loginCode(),
    stop,
  };
}

/**
 * Stops the parts together, so that one waiting out its own grace (a dispatch round mid-send,
 * a probe mid-connect, a tick on a database just back from an outage) does not spend the
 * others' share of the deadline; one still stopping after `graceMs` is named and left
 * behind, and the database's close ends what it was waiting on.
 */
async function stopWithin(
  graceMs: number,
  logger: Logger,
  parts: Record<string, () => Promise<unknown>>,
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
  const finished = await Promise.race([
    Promise.all(stops).then(() => true),
    sleep(graceMs, grace.signal).then(() => false),
  ]);
  grace.abort();
  if (!finished)
    logger.warn({ parts: [...pending] }, 'still stopping; closing the database anyway');
}
