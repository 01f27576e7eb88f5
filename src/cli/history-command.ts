import { serverHistory } from '../changes/history.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { limitFlag } from './flags.js';
import { formatTable, printJson, printLine, short } from './output.js';

/** `mcp-drift history NAME`: the server's observations, newest first, with the changes they revealed. */
export async function historyCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { limit?: string; json?: boolean };
  const problems = new Problems();
  const limit = limitFlag(problems, opts.limit);
  problems.throwIfAny();
  const ctx = await run.context();
  const history = await ctx.withDatabase((db) => serverHistory(db, name, { limit }));
  if (opts.json) return printJson(history);
  if (history.observations.length === 0) {
    return printLine(
      `no observations of ${history.server} yet; run \`mcp-drift check ${history.server}\``,
    );
  }
  printLine(
    formatTable(
      ['WHEN', 'HOW', 'OUTCOME', 'MS', 'LISTING', 'CHANGE', 'ERROR'],
      history.observations.map((row) => [
        row.startedAt,
        row.trigger,
        row.outcome,
        String(row.durationMs),
        row.listingHash ? short(row.listingHash) : '-',
        row.change ? `#${row.change.id} ${row.change.severity}` : '',
        row.error?.message ?? '',
      ]),
    ),
  );
}
