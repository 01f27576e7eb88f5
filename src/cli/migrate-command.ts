import type { CommandRun } from './command-run.js';
import { printJson, printLine } from './output.js';

/** Opening the database applies pending migrations (src/db/client.ts); this makes it explicit. */
export async function migrateCommand(run: CommandRun): Promise<void> {
  const ctx = await run.context();
  const location = await ctx.withDatabase(async (_db, handle) => handle.location);
  (await ctx.logger()).info({ database: location }, 'migrations applied');
  if (run.opts.json) printJson({ migrated: true, database: location });
  else printLine(`database ${location}: migrations applied, schema up to date`);
}
