import { Problems } from '../problems.js';
import {
  checkAlertUrl,
  checkEmails,
  checkIdentities,
  checkName,
  checkOAuthGrant,
  checkOAuthScope,
  checkOAuthSecret,
  checkSchedule,
  checkSeverity,
  checkTransport,
  checkTransportFields,
  checkTrust,
  checkUrl,
  parsePairs,
  type ServerSpec,
} from './server-spec.js';

/**
 * A registration as a person writes it (the flags of `server add` and `server edit`):
 * text not yet checked. Absent fields keep the current value when editing.
 */
export interface RegistrationInput {
  stdio?: boolean;
  url?: string;
  transport?: string;
  header?: string[];
  env?: string[];
  cwd?: string;
  trust?: string;
  /** `default`: the service's DEFAULT_SCHEDULE. */
  schedule?: string;
  notify?: string[];
  /** This server's own Slack incoming webhook and webhook URLs (alerts besides the global ones). */
  slack?: string;
  noSlack?: boolean;
  webhook?: string;
  noWebhook?: boolean;
  hold?: boolean;
  noHold?: boolean;
  /** `default`: the service's ALERT_MIN_SEVERITY. */
  alertMinSeverity?: string;
  /** `--oauth`: behind OAuth, a person logs in (authorization code + PKCE). */
  oauth?: boolean;
  /** `--no-oauth` (edit): no longer behind OAuth. */
  noOauth?: boolean;
  oauthGrant?: string;
  oauthClientId?: string;
  /** A `${VAR}` reference only. */
  oauthClientSecret?: string;
  oauthScope?: string[];
  /** `--also-as NAME[/VERSION]`, repeatable: replaces the set. */
  alsoAs?: string[];
  /** `--no-also-as` (edit): list as mcp-drift only. */
  noAlsoAs?: boolean;
  /** A stdio server's command line, as given after `--`. */
  commandLine?: string[];
}

/** Whether the input asks to change anything at all. */
export function changesAnything(input: RegistrationInput): boolean {
  return Object.values(input).some((value) => value !== undefined);
}

/**
 * Turns the input into a full registration; `base` is the current one when editing.
 * Every malformed value is reported at once; whether the fields fit the transport is
 * checked once the values are sound, since a rejected --url would otherwise also read as
 * a missing one.
 */
export function buildSpec(name: string, input: RegistrationInput, base?: ServerSpec): ServerSpec {
  const problems = new Problems();
  if (!base) problems.check(() => checkName(name));
  if (input.stdio && input.url !== undefined) {
    problems.add('USAGE', 'give either --stdio -- CMD or --url URL, not both');
  }
  if (input.commandLine !== undefined && !input.stdio) {
    problems.add('USAGE', `"-- ${input.commandLine.join(' ')}" needs --stdio before it`);
  }
  if (
    input.transport !== undefined &&
    (input.stdio || (input.url === undefined && base?.transport === 'stdio'))
  ) {
    problems.add('USAGE', '--transport applies to --url servers, not --stdio');
  }
  if (input.hold && input.noHold) problems.add('USAGE', 'give --hold or --no-hold, not both');
  if (input.slack !== undefined && input.noSlack) {
    problems.add('USAGE', 'give --slack URL or --no-slack, not both');
  }
  if (input.webhook !== undefined && input.noWebhook) {
    problems.add('USAGE', 'give --webhook URL or --no-webhook, not both');
  }
  if (!base && !input.stdio && input.url === undefined) {
    problems.add('USAGE', 'give --url URL or --stdio -- COMMAND [ARGS…]');
  }

  const transport =
    input.transport === undefined
      ? undefined
      : problems.check(() => checkTransport(input.transport!));
  const url = input.url === undefined ? undefined : problems.check(() => checkUrl(input.url!));
  const headers = input.header && problems.check(() => parsePairs(input.header!, '--header'));
  const env = input.env && problems.check(() => parsePairs(input.env!, '--env'));
  const trust =
    input.trust === undefined ? undefined : problems.check(() => checkTrust(input.trust!));
  const schedule =
    input.schedule === undefined || input.schedule === 'default'
      ? input.schedule
      : problems.check(() => checkSchedule(input.schedule!));
  const notify = input.notify && problems.check(() => checkEmails(input.notify!));
  const alsoAs = input.alsoAs && problems.check(() => checkIdentities(input.alsoAs!));
  if (input.alsoAs !== undefined && input.noAlsoAs) {
    problems.add('USAGE', 'give --also-as NAME or --no-also-as, not both');
  }
  const slack =
    input.slack === undefined
      ? undefined
      : problems.check(() => checkAlertUrl('--slack', input.slack!));
  const webhook =
    input.webhook === undefined
      ? undefined
      : problems.check(() => checkAlertUrl('--webhook', input.webhook!));
  const minSeverity =
    input.alertMinSeverity === undefined || input.alertMinSeverity === 'default'
      ? input.alertMinSeverity
      : problems.check(() => checkSeverity('--alert-min-severity', input.alertMinSeverity!));
  const oauthGrant =
    input.oauthGrant === undefined
      ? undefined
      : problems.check(() => checkOAuthGrant(input.oauthGrant!));
  const oauthSecret =
    input.oauthClientSecret === undefined
      ? undefined
      : problems.check(() => checkOAuthSecret(input.oauthClientSecret!));
  const oauthScopes =
    input.oauthScope && problems.check(() => input.oauthScope!.map(checkOAuthScope));
  const oauthGiven =
    input.oauth === true ||
    [input.oauthGrant, input.oauthClientId, input.oauthClientSecret, input.oauthScope].some(
      (value) => value !== undefined,
    );
  if (input.noOauth && oauthGiven) {
    problems.add('USAGE', 'give --no-oauth or the --oauth flags, not both');
  }
  problems.throwIfAny();

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
        oauth: null,
        alsoAs: [],
      };
  if (input.stdio) {
    const [command, ...args] = input.commandLine ?? [];
    Object.assign(spec, {
      transport: 'stdio',
      command: command ?? null,
      args,
      url: null,
      headers: {},
    });
  } else if (url !== undefined) {
    Object.assign(spec, {
      transport: transport ?? 'http',
      url,
      command: null,
      args: [],
      env: {},
      cwd: null,
      hold: false,
    });
  } else if (transport !== undefined) {
    spec.transport = transport;
  }
  if (headers) spec.headers = headers;
  if (env) spec.env = env;
  if (input.cwd !== undefined) spec.cwd = input.cwd;
  if (trust !== undefined) spec.trust = trust;
  if (schedule !== undefined) spec.schedule = schedule === 'default' ? null : schedule;
  if (notify) spec.notify = notify;
  if (slack !== undefined) spec.slackUrl = slack;
  if (webhook !== undefined) spec.webhookUrl = webhook;
  if (input.noSlack) spec.slackUrl = null;
  if (input.noWebhook) spec.webhookUrl = null;
  if (input.hold) spec.hold = true;
  if (input.noHold) spec.hold = false;
  if (minSeverity !== undefined) {
    spec.alertMinSeverity = minSeverity === 'default' ? null : minSeverity;
  }
  if (alsoAs) spec.alsoAs = alsoAs;
  if (input.noAlsoAs) spec.alsoAs = [];
  if (input.noOauth) spec.oauth = null;
  if (oauthGiven) {
    const current = spec.oauth;
    spec.oauth = {
      grant: oauthGrant ?? current?.grant ?? 'authorization_code',
      clientId: input.oauthClientId ?? current?.clientId ?? null,
      clientSecret: oauthSecret ?? current?.clientSecret ?? null,
      scopes: oauthScopes ?? current?.scopes ?? [],
    };
  }
  return checkTransportFields(spec);
}
