import { parseCommandArgs, expectPositionals } from './args.js';
import type { CommandContext } from './context.js';
import { printJson, printLine } from './output.js';

/** Opening the database applies pending migrations (src/db/client.ts); this makes it explicit. */
export async function migrateCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('migrate', argv, { json: { type: 'boolean' } });
  expectPositionals('migrate', positionals, []);
  const location = await ctx.withDatabase(async (_db, handle) => handle.location);
  ctx.logger.info({ database: location }, 'migrations applied');
  if (values.json) printJson({ migrated: true, database: location });
  else printLine(`database ${location}: migrations applied, schema up to date`);
}
