import { acknowledge, checkAlertStatus, listAlertViews } from '../alerts/alert-list.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { limitFlag, positiveInteger } from './flags.js';
import { formatTable, printJson, printLine } from './output.js';

/** `mcp-drift alerts list [--status S]`: the outbox, newest first. */
export async function alertsListCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as { status?: string; limit?: string; json?: boolean };
  const problems = new Problems();
  const status =
    opts.status === undefined ? undefined : problems.check(() => checkAlertStatus(opts.status!));
  const limit = limitFlag(problems, opts.limit);
  problems.throwIfAny();
  const ctx = await run.context();
  const view = await ctx.withDatabase((db) => listAlertViews(db, { status, limit }));
  if (opts.json) return printJson(view);
  if (view.alerts.length === 0) return printLine(status ? `no ${status} alerts` : 'no alerts');
  printLine(
    formatTable(
      ['ID', 'SERVER', 'CHANGE', 'SEVERITY', 'STATUS', 'TRIES', 'WHEN', 'NOTE'],
      view.alerts.map((row) => [
        String(row.id),
        row.server,
        String(row.changeId),
        row.severity,
        row.status,
        String(row.attempts),
        row.sentAt ?? row.nextAttemptAt ?? row.createdAt,
        row.digestOf !== null
          ? `in the digest of alert ${row.digestOf}`
          : (row.lastError ?? (row.recipients.length === 0 ? 'no recipients' : '')),
      ]),
    ),
  );
}

/** `mcp-drift alerts ack ID`. */
export async function alertsAckCommand(run: CommandRun): Promise<void> {
  const problems = new Problems();
  const id = positiveInteger(problems, 'ID', run.args[0]!);
  problems.throwIfAny();
  const ctx = await run.context();
  const { acknowledged } = await ctx.withDatabase((db) => acknowledge(db, id));
  if (run.opts.json) return printJson({ acknowledged });
  printLine(
    acknowledged.length === 0
      ? `alert ${id} was already acknowledged`
      : `acknowledged alert${acknowledged.length > 1 ? 's' : ''} ${acknowledged.join(', ')}`,
  );
}
