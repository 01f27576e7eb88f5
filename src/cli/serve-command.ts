import { once } from 'node:events';
import {
  loginLinkLine,
  removeConsoleAddress,
  writeConsoleAddress,
} from '../console/console-address.js';
import { openDatabase } from '../db/client.js';
import { warnMadePrivate } from '../private-files.js';
import { startService } from '../service.js';
import type { CommandRun } from './command-run.js';
import { printLine } from './output.js';
import { HeapCompactor, keepHeapNearLiveSize } from './serve-heap.js';

/**
 * Runs the service (service.ts) until SIGINT/SIGTERM (run-cli.ts enforces the shutdown
 * deadline). The database is opened in sharing mode: on the embedded database, CLI
 * commands reach it through a unix socket while this runs.
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
    const service = await startService({
      config: ctx.config,
      env: ctx.env,
      db: handle,
      logger,
      onSessionBurst: (sessions) => compactor.afterBurst(sessions),
      onListening: (access) => {
        // A login link on stdout, before the line tools wait for: a one-time code, never the
        // token, so neither the log nor a browser's history keeps anything that lets one in.
        printLine(loginLinkLine(access.url, access.loginCode, access.tokenFile));
        writeConsoleAddress(ctx.config, access.url);
        consoleUrl = access.url;
      },
    });
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    logger.info('shutting down');
    await service.stop();
  } finally {
    if (consoleUrl !== undefined) removeConsoleAddress(ctx.config, consoleUrl);
    compactor.stop();
    await handle.close();
  }
  logger.info('stopped');
}
