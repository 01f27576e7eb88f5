import {
  ALERT_STATUSES,
  acknowledgeAlert,
  listAlerts,
  type AlertStatus,
} from '../alerts/alerts-repo.js';
import { DriftError } from '../errors.js';
import { expectPositionals, parseCommandArgs, positiveInteger } from './args.js';
import type { CommandContext } from './context.js';
import { formatTable, printJson, printLine } from './output.js';

/** `mcp-drift alerts list [--status S]` and `mcp-drift alerts ack ID`. */
export async function alertsCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(ctx, rest);
  if (sub === 'ack') return ack(ctx, rest);
  throw new DriftError(
    'USAGE',
    `alerts: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}; use list [--status ${ALERT_STATUSES.join('|')}] or ack ID`,
  );
}

async function list(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('alerts list', argv, {
    status: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  expectPositionals('alerts list', positionals, []);
  const status = values.status;
  if (status !== undefined && !(ALERT_STATUSES as readonly string[]).includes(status)) {
    throw new DriftError(
      'USAGE',
      `invalid --status "${status}": use one of ${ALERT_STATUSES.join(', ')}`,
    );
  }
  const limit = values.limit === undefined ? 50 : positiveInteger('--limit', values.limit);
  const rows = await ctx.withDatabase((db) =>
    listAlerts(db, { status: status as AlertStatus | undefined, limit }),
  );
  const view = rows.map((row) => ({
    id: row.id,
    server: row.server,
    changeId: row.changeId,
    severity: row.severity,
    status: row.status,
    recipients: row.recipients,
    digestOf: row.digestOf,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    sentAt: row.sentAt?.toISOString() ?? null,
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
    messageId: row.messageId,
  }));
  if (values.json) return printJson({ alerts: view });
  if (view.length === 0) {
    return printLine(status ? `no ${status} alerts` : 'no alerts');
  }
  printLine(
    formatTable(
      ['ID', 'SERVER', 'CHANGE', 'SEVERITY', 'STATUS', 'TRIES', 'WHEN', 'NOTE'],
      view.map((row) => [
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

async function ack(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('alerts ack', argv, {
    json: { type: 'boolean' },
  });
  const [idText] = expectPositionals('alerts ack', positionals, ['ID']);
  const id = positiveInteger('ID', idText!);
  const acknowledged = await ctx.withDatabase((db) => acknowledgeAlert(db, id));
  const ids = acknowledged.map((row) => row.id);
  if (values.json) return printJson({ acknowledged: ids });
  printLine(
    ids.length === 0
      ? `alert ${id} was already acknowledged`
      : `acknowledged alert${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`,
  );
}
