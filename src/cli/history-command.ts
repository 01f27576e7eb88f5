import { serverHistory } from '../changes/history.js';
import { movedSurfacesText, surfaceCountsText } from '../listings/surface-text.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { limitFlag } from './flags.js';
import { formatTable, printJson, printLine, short } from './output.js';

/**
 * `mcp-drift history NAME`: the server's observation runs, newest first (one row per
 * outcome: a listing seen N times, or an error), each listing's surfaces with their counts,
 * and the changes they revealed with the surfaces each moved.
 */
export async function historyCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { limit?: string; json?: boolean };
  const problems = new Problems();
  const limit = limitFlag(problems, opts.limit);
  problems.throwIfAny();
  const ctx = await run.context();
  const history = await ctx.withDatabase((db) => serverHistory(db, name, { limit }));
  if (opts.json) return printJson(history);
  if (history.runs.length === 0) {
    return printLine(
      `no observations of ${history.server} yet; run \`mcp-drift check ${history.server}\``,
    );
  }
  printLine(
    formatTable(
      [
        'FIRST SEEN',
        'LAST SEEN',
        'OUTCOME',
        'LISTING',
        'SURFACES',
        'COUNT',
        'HOW',
        'CHANGE',
        'MOVED',
        'ERROR',
      ],
      history.runs.map((row) => [
        row.firstSeenAt,
        row.lastSeenAt,
        row.outcome,
        row.listingHash ? short(row.listingHash) : '-',
        row.surfaces ? surfaceCountsText(row.surfaces) : '',
        `× ${row.count.toLocaleString('en-US')}`,
        Object.keys(row.triggers).join(','),
        row.change ? `#${row.change.id} ${row.change.severity}` : '',
        row.change ? movedSurfacesText(row.change.surfaces) : '',
        row.error?.message ?? '',
      ]),
    ),
  );
}
