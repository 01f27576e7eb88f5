import { once } from 'node:events';
import { openDatabase } from '../db/client.js';
import { listServers } from '../registry/servers-repo.js';
import { Supervisor } from '../watch/supervisor.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';

/**
 * Runs the service until SIGINT/SIGTERM (main.ts enforces the shutdown deadline). The
 * database is opened in sharing mode: on the embedded database, CLI commands reach it
 * through a unix socket while this runs.
 */
export async function serveCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const { positionals } = parseCommandArgs('serve', argv, {});
  expectPositionals('serve', positionals, []);
  const handle = await openDatabase({
    databaseUrl: ctx.config.DATABASE_URL,
    home: ctx.config.MCP_DRIFT_HOME,
    share: true,
  });
  try {
    const supervisor = new Supervisor({
      db: handle.db,
      config: ctx.config,
      env: ctx.env,
      logger: ctx.logger,
    });
    const registered = await listServers(handle.db);
    ctx.logger.info(
      {
        database: handle.location,
        backend: handle.backend,
        servers: registered.length,
        enabled: registered.filter((server) => server.enabled).length,
        worker: supervisor.worker.id,
        pid: process.pid,
      },
      'mcp-drift serving',
    );
    supervisor.start();
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    ctx.logger.info('shutting down');
    await supervisor.stop();
  } finally {
    await handle.close();
  }
  ctx.logger.info('stopped');
}
