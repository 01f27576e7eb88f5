import {
  acknowledgeAll,
  acknowledgeOpen,
  checkAlertStatus,
  listAlertViews,
  type AlertListItem,
} from '../alerts/alert-list.js';
import { severityOf } from '../console/params.js';
import { CHANNELS, type ChannelName } from '../vocabulary/channels.js';
import { DriftError } from '../errors.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { limitFlag, positiveInteger } from './flags.js';
import { formatTable, printJson, printLine } from './output.js';

/**
 * `mcp-drift alerts list [--status S] [--server NAME] [--severity LEVEL]`: the outbox, newest
 * first, a line per delivery.
 */
export async function alertsListCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as {
    status?: string;
    server?: string;
    severity?: string;
    limit?: string;
    json?: boolean;
  };
  const problems = new Problems();
  const status =
    opts.status === undefined ? undefined : problems.check(() => checkAlertStatus(opts.status!));
  const minSeverity = problems.check(() => severityOf('--severity', opts.severity));
  const limit = limitFlag(problems, opts.limit);
  problems.throwIfAny();
  const ctx = await run.context();
  const view = await ctx.withDatabase((db) =>
    listAlertViews(db, { status, server: opts.server, minSeverity, limit }),
  );
  if (opts.json) return printJson(view);
  if (view.alerts.length === 0) {
    return printLine(
      `no ${status ? `${status} ` : ''}alerts${opts.server ? ` of ${opts.server}` : ''}`,
    );
  }
  // The alert's own columns on its first line only.
  const rows = view.alerts.flatMap((alert) => {
    const head = [
      String(alert.id),
      alert.server,
      String(alert.changeId),
      alert.severity,
      statusText(alert),
    ];
    if (alert.deliveries.length === 0) {
      return [
        [
          ...head,
          '-',
          '-',
          '-',
          '0',
          alert.createdAt,
          'nobody to tell: see `mcp-drift alerts retry`',
        ],
      ];
    }
    return alert.deliveries.map((delivery, index) => [
      ...(index === 0 ? head : head.map(() => '')),
      delivery.channel,
      delivery.destination,
      delivery.status,
      String(delivery.attempts),
      delivery.deliveredAt ?? delivery.nextAttemptAt ?? alert.createdAt,
      delivery.digestOf !== null && delivery.digestOf !== alert.id
        ? `in the digest of alert ${delivery.digestOf}`
        : (delivery.lastError ?? ''),
    ]);
  });
  printLine(
    formatTable(
      [
        'ID',
        'SERVER',
        'CHANGE',
        'SEVERITY',
        'STATUS',
        'CHANNEL',
        'TO',
        'DELIVERY',
        'TRIES',
        'WHEN',
        'NOTE',
      ],
      rows,
    ),
  );
}

/** An acknowledged alert says by whom, as the console's outbox does. */
function statusText(alert: AlertListItem): string {
  return alert.acknowledgedBy ? `${alert.status} by ${alert.acknowledgedBy.actor}` : alert.status;
}

/** `mcp-drift alerts ack ID…` or `alerts ack --server NAME` (every open alert of it). */
export async function alertsAckCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as { server?: string; json?: boolean };
  const problems = new Problems();
  // A variadic argument: commander hands over one array.
  const given = (run.args[0] ?? []) as unknown as string[];
  const ids = given.map((arg) => positiveInteger(problems, 'ID', arg));
  if (ids.length === 0 && opts.server === undefined)
    problems.add(
      'USAGE',
      'name the alerts to acknowledge: their ids, or --server NAME for all open ones',
    );
  if (ids.length > 0 && opts.server !== undefined)
    problems.add('USAGE', 'give alert ids or --server NAME, not both');
  problems.throwIfAny();
  const ctx = await run.context();
  const { acknowledged } = await ctx.withDatabase((db) =>
    opts.server === undefined
      ? acknowledgeAll(db, ids, { actor: ctx.actor })
      : acknowledgeOpen(db, opts.server, { actor: ctx.actor }),
  );
  if (opts.json) return printJson({ acknowledged });
  if (acknowledged.length > 0) {
    return printLine(
      `acknowledged alert${acknowledged.length > 1 ? 's' : ''} ${acknowledged.join(', ')}`,
    );
  }
  printLine(
    opts.server === undefined
      ? `alert${ids.length > 1 ? 's' : ''} ${ids.join(', ')} ${ids.length > 1 ? 'were' : 'was'} already acknowledged`
      : `${opts.server} has no open alerts`,
  );
}

/** `mcp-drift alerts retry ID`: queues again; a running serve sends. */
export async function alertsRetryCommand(run: CommandRun): Promise<void> {
  const problems = new Problems();
  const id = positiveInteger(problems, 'ID', run.args[0]!);
  problems.throwIfAny();
  const ctx = await run.context();
  const { retryAlert } = await import('../alerts/retry-alert.js');
  const result = await ctx.withDatabase((db) =>
    retryAlert(db, ctx.config, id, { actor: ctx.actor }),
  );
  const queued = result.queued.map((row) => ({ id: row.id, channel: row.channel }));
  if (run.opts.json) return printJson({ alert: id, queued });
  printLine(
    queued.length === 0
      ? `alert ${id} has no failed delivery to retry`
      : `queued ${queued.length} deliver${queued.length === 1 ? 'y' : 'ies'} of alert ${id} (${queued.map((row) => row.channel).join(', ')}); a running \`mcp-drift serve\` sends them`,
  );
}

/** `mcp-drift alerts test [--channel NAME]`: exit 4 when a channel fails. */
export async function alertsTestCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as { channel?: string; json?: boolean };
  const problems = new Problems();
  if (opts.channel !== undefined && !(CHANNELS as readonly string[]).includes(opts.channel)) {
    problems.add('USAGE', `invalid --channel "${opts.channel}": use one of ${CHANNELS.join(', ')}`);
  }
  problems.throwIfAny();
  const ctx = await run.context();
  // The mailer and HTTP channels load only here: no other alerts command sends anything.
  const { testChannels } = await import('../delivery/test-channels.js');
  const results = await testChannels(ctx.config, await ctx.logger(), {
    channel: opts.channel as ChannelName | undefined,
  });
  if (opts.json) printJson({ results });
  else {
    printLine(
      formatTable(
        ['CHANNEL', 'TO', 'RESULT'],
        results.map((row) => [
          row.channel,
          row.destination,
          row.ok ? 'ok' : `failed: ${row.error}`,
        ]),
      ),
    );
  }
  const failed = results.filter((row) => !row.ok);
  if (failed.length > 0) {
    throw new DriftError(
      'REMOTE_UNREACHABLE',
      `${failed.length} of ${results.length} test messages failed (${failed.map((row) => row.channel).join(', ')})`,
    );
  }
}
