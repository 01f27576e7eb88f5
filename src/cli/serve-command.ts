import { once } from 'node:events';
import { openDatabase } from '../db/client.js';
import { listServers } from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';

/**
 * Runs the service until `stop` aborts (main.ts enforces the shutdown deadline). The database is opened in sharing mode: on the
 * embedded database, CLI commands reach it through a unix socket while this runs.
 */
export async function serveCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const stop = ctx.signal;
  const { positionals } = parseCommandArgs('serve', argv, {});
  expectPositionals('serve', positionals, []);
  const handle = await openDatabase({
    databaseUrl: ctx.config.DATABASE_URL,
    home: ctx.config.MCP_DRIFT_HOME,
    share: true,
  });
  try {
    const registered = await listServers(handle.db);
    ctx.logger.info(
      {
        database: handle.location,
        backend: handle.backend,
        servers: registered.length,
        enabled: registered.filter((server) => server.enabled).length,
        pid: process.pid,
      },
      'mcp-drift serving',
    );
    if (!stop.aborted) await once(stop, 'abort');
    ctx.logger.info('shutting down');
  } finally {
    await handle.close();
  }
  ctx.logger.info('stopped');
}
