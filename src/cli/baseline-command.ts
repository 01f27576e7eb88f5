import { approveBaseline, showBaseline } from '../changes/baseline.js';
import type { CommandRun } from './command-run.js';
import { formatTable, printJson, printLine, short } from './output.js';

export async function baselineShowCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const baseline = await ctx.withDatabase((db) => showBaseline(db, name));
  if (run.opts.json) return printJson(baseline);
  printLine(
    `${baseline.server}: baseline ${short(baseline.hash)} (${baseline.approvedBy}, ${baseline.approvedAt}), ${baseline.tools.length} tools`,
  );
  printLine(
    formatTable(
      ['TOOL', 'READ-ONLY', 'DESTRUCTIVE', 'IDEMPOTENT', 'OPEN-WORLD'],
      baseline.tools.map((tool) => {
        const hints = (tool['annotations'] ?? {}) as Record<string, unknown>;
        const shown = (key: string) => (key in hints ? JSON.stringify(hints[key]) : '-');
        return [
          tool.name,
          shown('readOnlyHint'),
          shown('destructiveHint'),
          shown('idempotentHint'),
          shown('openWorldHint'),
        ];
      }),
    ),
  );
}

export async function baselineApproveCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { listing?: string; json?: boolean };
  const ctx = await run.context();
  const approved = await ctx.withDatabase((db) =>
    approveBaseline(db, name, { listing: opts.listing, actor: ctx.actor }),
  );
  (await ctx.logger()).info(
    { server: approved.server, listing: approved.hash },
    'baseline approved',
  );
  if (opts.json) return printJson(approved);
  printLine(`${approved.server}: baseline is now ${short(approved.hash)}`);
}
