import { maskAlertUrl } from '../alerts/alert-url.js';
import type { ServerRow } from '../db/schema.js';
import { DriftError } from '../errors.js';
import { maskValue, maskValues } from '../registry/redact.js';
import {
  checkAlertUrl,
  checkEmails,
  checkName,
  checkSchedule,
  checkSeverity,
  checkTransport,
  checkTransportFields,
  checkTrust,
  checkUrl,
  parsePairs,
  type ServerSpec,
} from '../registry/server-spec.js';
import {
  getServer,
  insertServer,
  listServers,
  removeServer,
  setServerEnabled,
  specOf,
  updateServer,
} from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { formatTable, printJson, printLine } from './output.js';

const registrationFlags = {
  stdio: { type: 'boolean' },
  url: { type: 'string' },
  transport: { type: 'string' },
  header: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  trust: { type: 'string' },
  schedule: { type: 'string' },
  notify: { type: 'string', multiple: true },
  slack: { type: 'string' },
  webhook: { type: 'string' },
  hold: { type: 'boolean' },
  'alert-min-severity': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const editFlags = {
  ...registrationFlags,
  'no-hold': { type: 'boolean' },
  'no-slack': { type: 'boolean' },
  'no-webhook': { type: 'boolean' },
} as const;
const jsonFlag = { json: { type: 'boolean' } } as const;

type RegistrationValues = {
  stdio?: boolean;
  url?: string;
  transport?: string;
  header?: string[];
  env?: string[];
  cwd?: string;
  trust?: string;
  schedule?: string;
  notify?: string[];
  slack?: string;
  webhook?: string;
  'no-slack'?: boolean;
  'no-webhook'?: boolean;
  hold?: boolean;
  'no-hold'?: boolean;
  'alert-min-severity'?: string;
};

export const serverUsage = `mcp-drift server add NAME (--stdio -- CMD [ARGS…] | --url URL [--transport http|sse])
                 [--header K=V]… [--env K=V]… [--cwd DIR] [--trust LEVEL]
                 [--schedule CRON] [--notify EMAIL]… [--slack URL] [--webhook URL]
                 [--hold] [--alert-min-severity LEVEL] [--json]
mcp-drift server list [--json]
mcp-drift server show|remove|enable|disable NAME [--json]
mcp-drift server edit NAME [the flags of add] [--no-hold] [--no-slack] [--no-webhook]
                 [--schedule default]
                 [--alert-min-severity default] [--json]`;

export async function serverCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'add':
      return add(ctx, rest);
    case 'list':
      return list(ctx, rest);
    case 'show':
      return show(ctx, rest);
    case 'remove':
      return remove(ctx, rest);
    case 'enable':
    case 'disable':
      return toggle(ctx, sub, rest);
    case 'edit':
      return edit(ctx, rest);
    default:
      throw new DriftError(
        'USAGE',
        `server: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}; use add, list, show, remove, enable, disable or edit (see \`mcp-drift help\`)`,
      );
  }
}

/** Turns flags into a full registration; `base` is the current one when editing. */
function buildSpec(
  name: string,
  values: RegistrationValues,
  commandLine: string[] | undefined,
  base?: ServerSpec,
): ServerSpec {
  if (values.stdio && values.url !== undefined) {
    throw new DriftError('USAGE', 'give either --stdio -- CMD or --url URL, not both');
  }
  if (commandLine !== undefined && !values.stdio) {
    throw new DriftError('USAGE', `"-- ${commandLine.join(' ')}" needs --stdio before it`);
  }
  if (values.stdio && values.transport !== undefined) {
    throw new DriftError('USAGE', '--transport applies to --url servers, not --stdio');
  }
  if (values.hold && values['no-hold'])
    throw new DriftError('USAGE', 'give --hold or --no-hold, not both');

  const spec: ServerSpec = base
    ? { ...base }
    : {
        name,
        transport: 'http',
        command: null,
        args: [],
        env: {},
        cwd: null,
        url: null,
        headers: {},
        trust: 'untrusted',
        schedule: null,
        notify: [],
        slackUrl: null,
        webhookUrl: null,
        hold: false,
        alertMinSeverity: null,
      };
  if (values.stdio) {
    const [command, ...args] = commandLine ?? [];
    Object.assign(spec, {
      transport: 'stdio',
      command: command ?? null,
      args,
      url: null,
      headers: {},
    });
  } else if (values.url !== undefined) {
    Object.assign(spec, {
      transport: checkTransport(values.transport ?? 'http'),
      url: checkUrl(values.url),
      command: null,
      args: [],
      env: {},
      cwd: null,
      hold: false,
    });
  } else if (values.transport !== undefined) {
    if (spec.transport === 'stdio') {
      throw new DriftError('USAGE', '--transport applies to --url servers, not --stdio');
    }
    spec.transport = checkTransport(values.transport);
  } else if (!base) {
    throw new DriftError('USAGE', 'give --url URL or --stdio -- COMMAND [ARGS…]');
  }
  if (values.header) spec.headers = parsePairs(values.header, '--header');
  if (values.env) spec.env = parsePairs(values.env, '--env');
  if (values.cwd !== undefined) spec.cwd = values.cwd;
  if (values.trust !== undefined) spec.trust = checkTrust(values.trust);
  if (values.schedule !== undefined) {
    spec.schedule = values.schedule === 'default' ? null : checkSchedule(values.schedule);
  }
  if (values.notify) spec.notify = checkEmails(values.notify);
  if (values.slack !== undefined) spec.slackUrl = checkAlertUrl('--slack', values.slack);
  if (values.webhook !== undefined) spec.webhookUrl = checkAlertUrl('--webhook', values.webhook);
  if (values['no-slack']) spec.slackUrl = null;
  if (values['no-webhook']) spec.webhookUrl = null;
  if (values.hold) spec.hold = true;
  if (values['no-hold']) spec.hold = false;
  const minSeverity = values['alert-min-severity'];
  if (minSeverity !== undefined) {
    spec.alertMinSeverity =
      minSeverity === 'default' ? null : checkSeverity('--alert-min-severity', minSeverity);
  }
  return checkTransportFields(spec);
}

async function add(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals, rest } = parseCommandArgs('server add', argv, registrationFlags);
  const [name] = expectPositionals('server add', positionals, ['NAME']);
  const spec = buildSpec(checkName(name!), values, rest);
  const row = await ctx.withDatabase((db) => insertServer(db, spec));
  ctx.logger.info({ server: row.name, transport: row.transport }, 'server added');
  report(ctx, row, values.json, `added server ${row.name}`);
}

async function edit(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals, rest } = parseCommandArgs('server edit', argv, editFlags);
  const [name] = expectPositionals('server edit', positionals, ['NAME']);
  const changing = Object.keys(values).filter((key) => key !== 'json');
  if (changing.length === 0) {
    throw new DriftError(
      'USAGE',
      `server edit ${name}: nothing to change; give flags as for server add`,
    );
  }
  const row = await ctx.withDatabase(async (db) => {
    const current = await getServer(db, name!);
    return updateServer(db, current.name, buildSpec(current.name, values, rest, specOf(current)));
  });
  ctx.logger.info({ server: row.name, fields: changing }, 'server edited');
  report(ctx, row, values.json, `updated server ${row.name}`);
}

async function list(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('server list', argv, jsonFlag);
  expectPositionals('server list', positionals, []);
  const rows = await ctx.withDatabase((db) => listServers(db));
  if (values.json) return printJson(rows.map((row) => serverView(row, ctx)));
  if (rows.length === 0)
    return printLine('no servers registered; add one with `mcp-drift server add`');
  printLine(
    formatTable(
      ['NAME', 'TRANSPORT', 'TRUST', 'SCHEDULE', 'ENABLED', 'TARGET'],
      rows.map((row) => {
        const view = serverView(row, ctx);
        return [
          view.name,
          view.transport,
          view.trust,
          view.effectiveSchedule,
          view.enabled ? 'yes' : 'no',
          target(view),
        ];
      }),
    ),
  );
}

async function show(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('server show', argv, jsonFlag);
  const [name] = expectPositionals('server show', positionals, ['NAME']);
  const row = await ctx.withDatabase((db) => getServer(db, name!));
  report(ctx, row, values.json);
}

async function remove(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('server remove', argv, jsonFlag);
  const [name] = expectPositionals('server remove', positionals, ['NAME']);
  const row = await ctx.withDatabase((db) => removeServer(db, name!));
  ctx.logger.info({ server: row.name }, 'server removed');
  if (values.json) return printJson({ removed: row.name });
  printLine(`removed server ${row.name} and its history`);
}

async function toggle(
  ctx: CommandContext,
  sub: 'enable' | 'disable',
  argv: string[],
): Promise<void> {
  const { values, positionals } = parseCommandArgs(`server ${sub}`, argv, jsonFlag);
  const [name] = expectPositionals(`server ${sub}`, positionals, ['NAME']);
  const row = await ctx.withDatabase((db) => setServerEnabled(db, name!, sub === 'enable'));
  ctx.logger.info({ server: row.name, enabled: row.enabled }, `server ${sub}d`);
  report(ctx, row, values.json, `${sub}d server ${row.name}`);
}

/** A registration as it may be shown: literal header and env values never appear. */
export function serverView(row: ServerRow, ctx: Pick<CommandContext, 'config'>) {
  return {
    name: row.name,
    transport: row.transport,
    command: row.command,
    args: row.args,
    env: maskValues(row.env),
    cwd: row.cwd,
    url: row.url === null ? null : maskUrl(row.url),
    headers: maskValues(row.headers),
    trust: row.trust,
    schedule: row.schedule,
    effectiveSchedule: row.schedule ?? ctx.config.DEFAULT_SCHEDULE,
    notify: row.notify,
    slack: row.slackUrl === null ? null : maskAlertUrl(row.slackUrl),
    webhook: row.webhookUrl === null ? null : maskAlertUrl(row.webhookUrl),
    alertMinSeverity: row.alertMinSeverity,
    hold: row.hold,
    held: row.transport !== 'stdio' || row.hold,
    enabled: row.enabled,
    protocolEra: row.protocolEra,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function maskUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = maskValue(decodeURIComponent(parsed.password));
  return parsed.toString();
}

function target(view: ReturnType<typeof serverView>): string {
  return view.transport === 'stdio' ? [view.command, ...view.args].join(' ') : (view.url ?? '');
}

function report(
  ctx: CommandContext,
  row: ServerRow,
  json: boolean | undefined,
  headline?: string,
): void {
  const view = serverView(row, ctx);
  if (json) return printJson(view);
  if (headline) printLine(headline);
  const pairs = (values: Record<string, string>) =>
    Object.entries(values)
      .map(([key, value]) => `${key}=${value}`)
      .join(', ') || '-';
  const lines: [string, string][] = [
    ['name', view.name],
    ['transport', view.transport],
    view.transport === 'stdio' ? ['command', target(view)] : ['url', view.url ?? ''],
    ...(view.transport === 'stdio'
      ? ([
          ['env', pairs(view.env)],
          ['cwd', view.cwd ?? '-'],
        ] as [string, string][])
      : ([['headers', pairs(view.headers)]] as [string, string][])),
    ['trust', view.trust],
    ['schedule', view.schedule ?? `default (${view.effectiveSchedule})`],
    ['held session', view.held ? 'yes' : 'no (probed on schedule)'],
    ['notify', view.notify.join(', ') || '-'],
    ['slack', view.slack ?? '-'],
    ['webhook', view.webhook ?? '-'],
    ['alerts from', view.alertMinSeverity ?? `default (${ctx.config.ALERT_MIN_SEVERITY})`],
    ['enabled', view.enabled ? 'yes' : 'no'],
    ['protocol era', view.protocolEra ?? 'not yet connected'],
  ];
  printLine(formatTable(['FIELD', 'VALUE'], lines).split('\n').slice(1).join('\n'));
}
