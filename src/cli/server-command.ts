import type { EarlyProblem } from '../registry/early-checks.js';
import { previewRemoval } from '../read-models/removal-preview.js';
import { buildSpec, type RegistrationInput } from '../registry/registration-input.js';
import {
  editServer,
  enableServer,
  registerServer,
  showServer,
  unregisterServer,
} from '../registry/server-registry.js';
import type { ServerView } from '../registry/server-view.js';
import { listServersWithState } from '../read-models/server-list.js';
import type { CommandAction, CommandRun } from './command-run.js';
import { confirm, requireConfirmable } from './confirmation.js';
import type { CommandContext } from './context.js';
import { checkEarly } from './early-checks.js';
import { formatTable, printJson, printLine, printWarnings } from './output.js';

/**
 * The flags of `server add` and `server edit`, as commander names them: the registration
 * input, except that commander folds `--no-hold`, `--no-slack` and `--no-webhook` into
 * `false` on the positive name.
 */
type RegistrationFlags = Omit<
  RegistrationInput,
  | 'hold'
  | 'noHold'
  | 'slack'
  | 'noSlack'
  | 'webhook'
  | 'noWebhook'
  | 'commandLine'
  | 'oauth'
  | 'noOauth'
  | 'alsoAs'
  | 'noAlsoAs'
> & {
  alsoAs?: string[] | false;
  hold?: boolean;
  oauth?: boolean;
  slack?: string | false;
  webhook?: string | false;
  json?: boolean;
  check?: boolean;
};

function registrationInput(run: CommandRun): RegistrationInput {
  const {
    json: _json,
    check: _check,
    hold,
    oauth,
    slack,
    webhook,
    alsoAs,
    ...flags
  } = run.opts as RegistrationFlags;
  const input: RegistrationInput = {
    ...flags,
    oauth: oauth === true ? true : undefined,
    noOauth: oauth === false ? true : undefined,
    hold: hold === true ? true : undefined,
    noHold: hold === false ? true : undefined,
    slack: typeof slack === 'string' ? slack : undefined,
    noSlack: slack === false ? true : undefined,
    webhook: typeof webhook === 'string' ? webhook : undefined,
    noWebhook: webhook === false ? true : undefined,
    alsoAs: Array.isArray(alsoAs) ? alsoAs : undefined,
    noAlsoAs: alsoAs === false ? true : undefined,
    commandLine: run.rest,
  };
  // Only what was given: an absent field keeps its value when editing.
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as RegistrationInput;
}

const defaultsOf = (ctx: CommandContext) => ({ schedule: ctx.config.DEFAULT_SCHEDULE });

export async function serverAddCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const spec = buildSpec(name, registrationInput(run));
  const ctx = await run.context();
  const problems = await checkEarly(ctx, [spec], run.opts.check === true);
  const view = await ctx.withDatabase((db) => registerServer(db, spec, defaultsOf(ctx)));
  (await ctx.logger()).info({ server: view.name, transport: view.transport }, 'server added');
  report(ctx, view, run.opts.json, `added server ${view.name}`);
  printWarnings(problems);
}

export async function serverEditCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const input = registrationInput(run);
  let problems: EarlyProblem[] = [];
  const view = await ctx.withDatabase((db) =>
    editServer(db, name, input, defaultsOf(ctx), {
      beforeWrite: async (spec) => {
        problems = await checkEarly(ctx, [spec], run.opts.check === true);
      },
    }),
  );
  (await ctx.logger()).info({ server: view.name, fields: Object.keys(input) }, 'server edited');
  report(ctx, view, run.opts.json, `updated server ${view.name}`);
  printWarnings(problems);
}

export async function serverListCommand(run: CommandRun): Promise<void> {
  const ctx = await run.context();
  const views = await ctx.withDatabase((db) => listServersWithState(db, defaultsOf(ctx)));
  if (run.opts.json) return printJson(views);
  if (views.length === 0) {
    return printLine('no servers registered; add one with `mcp-drift server add`');
  }
  printLine(
    formatTable(
      [
        'NAME',
        'STATE',
        'LAST LISTING',
        'LATEST CHANGE',
        'TRANSPORT',
        'TRUST',
        'SCHEDULE',
        'TARGET',
      ],
      views.map(({ status, ...view }) => [
        view.name,
        status.state,
        status.lastListingAt ?? '-',
        status.latestChange
          ? `#${status.latestChange.id} ${status.latestChange.severity}, ${status.latestChange.detectedAt}`
          : '-',
        view.transport,
        view.trust,
        view.effectiveSchedule,
        target(view),
      ]),
    ),
  );
  // The reasons go under the table: an error message is too long for a column.
  for (const { name, status } of views) {
    if (status.state === 'misconfigured' && status.configProblem) {
      printLine(`${name} is misconfigured: ${status.configProblem.problem}`);
    } else if (status.state === 'needs_login' && status.down) {
      printLine(`${name} needs a login since ${status.down.since}: ${status.down.reason}`);
    } else if (status.down) {
      printLine(`${name} is down since ${status.down.since}: ${status.down.reason}`);
    }
  }
}

export async function serverShowCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const view = await ctx.withDatabase((db) => showServer(db, name, defaultsOf(ctx)));
  report(ctx, view, run.opts.json);
}

export async function serverRemoveCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { json?: boolean; yes?: boolean };
  requireConfirmable('server remove', opts.yes);
  const ctx = await run.context();
  const { preview, removed } = await ctx.withDatabase(async (db) => {
    const preview = await previewRemoval(db, name);
    const history = `${count(preview.observations, 'observation')}, ${count(preview.changes, 'change')} and ${count(preview.alerts, 'alert')}`;
    if (!opts.json) printLine(`${preview.server}: removing it deletes its history: ${history}`);
    await confirm(`Remove ${preview.server} and its history?`, {
      yes: opts.yes,
      signal: ctx.signal,
    });
    return { preview, removed: await unregisterServer(db, preview.server) };
  });
  (await ctx.logger()).info({ server: removed.removed }, 'server removed');
  if (opts.json) return printJson({ ...removed, history: preview });
  printLine(`removed server ${removed.removed} and its history`);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function serverEnableCommand(enabled: boolean): CommandAction {
  const verb = enabled ? 'enabled' : 'disabled';
  return async (run) => {
    const [name] = run.args as [string];
    const ctx = await run.context();
    const view = await ctx.withDatabase((db) =>
      enableServer(db, name, enabled, defaultsOf(ctx), { actor: ctx.actor }),
    );
    (await ctx.logger()).info({ server: view.name, enabled: view.enabled }, `server ${verb}`);
    report(ctx, view, run.opts.json, `${verb} server ${view.name}`);
  };
}

function target(view: ServerView): string {
  return view.transport === 'stdio' ? [view.command, ...view.args].join(' ') : (view.url ?? '');
}

function report(ctx: CommandContext, view: ServerView, json: unknown, headline?: string): void {
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
    ['also lists as', view.alsoAs.join(', ') || '-'],
    ...oauthLines(view),
  ];
  printLine(formatTable(['FIELD', 'VALUE'], lines).split('\n').slice(1).join('\n'));
}

/** What `server show` says of OAuth: settings and references, never a secret or a token. */
function oauthLines(view: ServerView): [string, string][] {
  const oauth = view.oauth;
  if (!oauth) return view.transport === 'stdio' ? [] : [['oauth', 'no']];
  return [
    ['oauth grant', oauth.grant.replaceAll('_', '-')],
    ['oauth client', oauth.clientId ?? 'dynamic registration'],
    ['oauth client secret', oauth.clientSecret ?? '-'],
    ['oauth scopes', oauth.scopes.join(' ') || 'as the server advertises'],
    ...(oauth.grant === 'authorization_code' ? loginLines(view) : []),
    ['authorization server', 'discovered from the server (RFC 9728) at each connection'],
  ];
}

/** A login's state (`server show` only): never a token. */
function loginLines(view: ServerView): [string, string][] {
  const login = view.login;
  if (login === undefined) return [];
  if (login === null) return [['oauth state', `no login yet: mcp-drift server login ${view.name}`]];
  return [
    [
      'oauth state',
      login.state === 'authorized'
        ? 'authorized'
        : `needs_login: mcp-drift server login ${view.name}`,
    ],
    ['oauth authorization server', login.authorizationServer ?? '-'],
    ['oauth scope granted', login.scope ?? '-'],
    ['oauth token expires', login.expiresAt ?? '-'],
  ];
}
