import { alertListing } from '../alerts/alert-listing.js';
import { CHANNELS, type ChannelName } from '../alerts/alert-policy.js';
import { ALERT_STATUSES, acknowledgeAlert, type AlertStatus } from '../alerts/alerts-repo.js';
import { retryAlert } from '../alerts/retry-alert.js';
import { testChannels } from '../alerts/test-channels.js';
import { DriftError } from '../errors.js';
import { expectPositionals, parseCommandArgs, positiveInteger } from './args.js';
import type { CommandContext } from './context.js';
import { formatTable, printJson, printLine } from './output.js';

const SUBCOMMANDS = `list [--status ${ALERT_STATUSES.join('|')}], ack ID, retry ID or test [--channel ${CHANNELS.join('|')}]`;

/** `mcp-drift alerts list|ack|retry|test`: the use cases live in src/alerts/. */
export async function alertsCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(ctx, rest);
  if (sub === 'ack') return ack(ctx, rest);
  if (sub === 'retry') return retry(ctx, rest);
  if (sub === 'test') return test(ctx, rest);
  throw new DriftError(
    'USAGE',
    `alerts: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}; use ${SUBCOMMANDS}`,
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
  const view = await ctx.withDatabase((db) =>
    alertListing(db, { status: status as AlertStatus | undefined, limit }),
  );
  if (values.json) return printJson({ alerts: view });
  if (view.length === 0) {
    return printLine(status ? `no ${status} alerts` : 'no alerts');
  }
  // One line per delivery; the alert's own columns on its first line only.
  const rows = view.flatMap((alert) => {
    const head = [
      String(alert.id),
      alert.server,
      String(alert.changeId),
      alert.severity,
      alert.status,
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

async function retry(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('alerts retry', argv, {
    json: { type: 'boolean' },
  });
  const [idText] = expectPositionals('alerts retry', positionals, ['ID']);
  const id = positiveInteger('ID', idText!);
  const result = await ctx.withDatabase((db) => retryAlert(db, ctx.config, id));
  const queued = result.queued.map((row) => ({ id: row.id, channel: row.channel }));
  if (values.json) return printJson({ alert: id, queued });
  printLine(
    queued.length === 0
      ? `alert ${id} has no failed delivery to retry`
      : `queued ${queued.length} deliver${queued.length === 1 ? 'y' : 'ies'} of alert ${id} (${queued.map((row) => row.channel).join(', ')}); a running \`mcp-drift serve\` sends them`,
  );
}

async function test(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('alerts test', argv, {
    channel: { type: 'string' },
    json: { type: 'boolean' },
  });
  expectPositionals('alerts test', positionals, []);
  const channel = values.channel;
  if (channel !== undefined && !(CHANNELS as readonly string[]).includes(channel)) {
    throw new DriftError(
      'USAGE',
      `invalid --channel "${channel}": use one of ${CHANNELS.join(', ')}`,
    );
  }
  const results = await testChannels(ctx.config, ctx.logger, {
    channel: channel as ChannelName | undefined,
  });
  if (values.json) printJson({ results });
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
