import { cronProblem, isValidCron } from '../cron-expression.js';
import { alertUrlProblem } from './alert-url.js';
import { SEVERITIES, type Severity } from '../diff/severity.js';
import { isEmailAddress } from '../email-address.js';
import { LOG_FORMATS, type LogFormat } from '../log-pretty.js';
import { GATEWAY_POLICIES, type GatewayPolicy } from '../vocabulary/gateway-policies.js';

/*
 * Design §8: what each environment variable may hold. Checked by hand rather than with a
 * schema library: every command reads the configuration, and zod took 60 ms of CPU to
 * load (three times a bare node start) to check two dozen strings; see docs/cli.md.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A value that does not fit; its message completes "NAME …". */
class Unfit extends Error {}

/** Reads one variable's text (never empty: empty counts as unset) into its value. */
type Reader<T> = (text: string) => T;

const urlWithScheme =
  (schemes: string[]): Reader<string> =>
  (text) => {
    let scheme: string | undefined;
    try {
      scheme = new URL(text).protocol.replace(/:$/, '');
    } catch {
      scheme = undefined;
    }
    if (scheme === undefined || !schemes.includes(scheme)) {
      throw new Unfit(`must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}`);
    }
    return text;
  };

/** A Slack or webhook destination: https, or http to loopback only (alert-url.ts). */
const alertUrl: Reader<string> = (text) => {
  const problem = alertUrlProblem(text);
  if (problem !== null) throw new Unfit(problem);
  return text;
};

const email: Reader<string> = (text) => {
  if (!isEmailAddress(text)) throw new Unfit('must be an email address');
  return text;
};

const emailList: Reader<string[]> = (text) => {
  const addresses = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (!addresses.every(isEmailAddress)) {
    throw new Unfit('must be a comma-separated list of email addresses');
  }
  return addresses;
};

const oneOf =
  <T extends string>(values: readonly T[]): Reader<T> =>
  (text) => {
    if (!(values as readonly string[]).includes(text)) {
      throw new Unfit(`must be one of ${values.join(', ')}`);
    }
    return text as T;
  };

const number =
  (min: number, max = Infinity, options: { integer?: boolean } = {}): Reader<number> =>
  (text) => {
    const value = Number(text.trim());
    const integer = options.integer ?? true;
    if (text.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      throw new Unfit(`must be ${integer ? 'a whole number' : 'a number'}`);
    }
    if (value < min || value > max) {
      throw new Unfit(
        max === Infinity ? `must be at least ${min}` : `must be from ${min} to ${max}`,
      );
    }
    return value;
  };

const text =
  (min = 1, message = `must be at least ${min} characters`): Reader<string> =>
  (value) => {
    if (value.length < min) throw new Unfit(message);
    return value;
  };

/** `1`/`true`/`yes` or `0`/`false`/`no`. */
const flag: Reader<boolean> = (value) => {
  const word = value.trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(word)) return true;
  if (['0', 'false', 'no'].includes(word)) return false;
  throw new Unfit('must be 1 or 0');
};

/** Comma-separated DNS names, kept in lower case without a trailing dot. */
const hostNames: Reader<string[]> = (value) => {
  const names = value
    .split(',')
    .map((part) => part.trim().toLowerCase().replace(/\.$/, ''))
    .filter((part) => part !== '');
  if (
    !names.every((name) =>
      /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name),
    )
  ) {
    throw new Unfit('must be a comma-separated list of host names, without ports or schemes');
  }
  return names;
};

const cron: Reader<string> = (value) => {
  if (!isValidCron(value))
    throw new Unfit(`must be a valid cron expression: ${cronProblem(value)}`);
  return value;
};

/** Every variable: how it is read, and its value when unset (undefined: none). */
export const CONFIG_FIELDS = {
  DATABASE_URL: [urlWithScheme(['postgres', 'postgresql']), undefined],
  MCP_DRIFT_HOME: [text(), './.mcp-drift'],
  SMTP_URL: [urlWithScheme(['smtp', 'smtps']), undefined],
  ALERT_FROM: [email, 'mcp-drift@localhost'],
  ALERT_TO: [emailList, [] as string[]],
  ALERT_MIN_SEVERITY: [oneOf(SEVERITIES), 'medium' as Severity],
  DIGEST_SECONDS: [number(0, 86_400), 60],
  /** Sending an alert is tried this many times (with growing waits) before it is marked failed. */
  ALERT_MAX_ATTEMPTS: [number(1, 100), 10],
  /** The first retry's wait; each further one doubles, up to an hour. */
  ALERT_RETRY_SECONDS: [number(0.1, 3600, { integer: false }), 30],
  /**
   * A delivery being sent is not claimed again for this long; after a crash mid-send it is
   * retried when this runs out. Each send's own timeouts stay below half of it.
   */
  ALERT_CLAIM_SECONDS: [number(10, 3600), 120],
  /** A Slack incoming-webhook URL that gets every alert (servers may add their own). */
  SLACK_WEBHOOK_URL: [alertUrl, undefined],
  /** Unset: ALERT_MIN_SEVERITY. */
  SLACK_MIN_SEVERITY: [oneOf(SEVERITIES), undefined],
  /** A URL that gets every alert as a signed JSON document (servers may add their own). */
  WEBHOOK_URL: [alertUrl, undefined],
  /** The HMAC-SHA256 key of X-Mcp-Drift-Signature; required with any webhook. */
  WEBHOOK_SECRET: [
    text(16, 'must be at least 16 characters (a random string: openssl rand -hex 32)'),
    undefined,
  ],
  /** Unset: ALERT_MIN_SEVERITY. */
  WEBHOOK_MIN_SEVERITY: [oneOf(SEVERITIES), undefined],
  DEFAULT_SCHEDULE: [cron, '*/5 * * * *'],
  /**
   * The operator console's token (src/console/). Unset: one is generated on first start and
   * kept in MCP_DRIFT_HOME/console-token.
   */
  CONSOLE_TOKEN: [
    text(16, 'must be at least 16 characters (a random string: openssl rand -hex 32)'),
    undefined,
  ],
  /**
   * The AES-256-GCM key of OAuth tokens at rest (docs/oauth.md), 32 bytes as base64 or hex.
   * Unset: one is made on first use and kept in MCP_DRIFT_HOME/secret-key (0600).
   */
  MCP_DRIFT_SECRET_KEY: [
    text(32, 'must be 32 bytes as base64 or hex (openssl rand -base64 32)'),
    undefined,
  ],
  /** Keys of before a rotation, comma-separated: they still open what they sealed. */
  MCP_DRIFT_SECRET_KEY_PREVIOUS: [text(), undefined],
  HTTP_HOST: [text(), '127.0.0.1'],
  /**
   * Host names the ops listener answers to besides IP addresses, `localhost` and HTTP_HOST
   * (src/http/host-allowlist.ts): the name of a proxy in front, a DNS name scrapers use.
   */
  CONSOLE_HOSTS: [hostNames, [] as string[]],
  /**
   * Believe `X-Forwarded-Proto` and `X-Forwarded-For` from the proxy in front: cookies are
   * marked Secure when it says https, and logins are throttled per the address it names.
   */
  TRUST_PROXY: [flag, false],
  /**
   * 8464: unassigned in IANA's registry, outside the Prometheus exporters' 9100-9999 and the
   * ephemeral range. 9464 was the OpenTelemetry Prometheus exporter's, and taken here.
   */
  HTTP_PORT: [number(0, 65535), 8464],
  LOG_LEVEL: [oneOf(LOG_LEVELS), 'info' as LogLevel],
  /**
   * `auto`: readable lines when stderr is a terminal, JSON lines otherwise (a pipe, a file,
   * a container's log); `json` or `pretty` to choose (src/log-pretty.ts).
   */
  LOG_FORMAT: [oneOf(LOG_FORMATS), 'auto' as LogFormat],
  /** Caps on one listing (docs/design.md §6); hitting one makes the attempt an error observation. */
  LISTING_MAX_PAGES: [number(1), 100],
  LISTING_MAX_TOOLS: [number(1), 10_000],
  LISTING_MAX_BYTES: [number(1024), 16 * 1024 * 1024],
  /** Per MCP request (connect, each page). */
  REQUEST_TIMEOUT_MS: [number(100), 30_000],
  /** Fresh probes running at once, over all servers of one worker. */
  PROBE_CONCURRENCY: [number(1), 16],
  /**
   * Observation runs last seen longer ago than this are pruned, unless a change, a baseline
   * or an open outage refers to them (src/changes/retention.ts), with the listing bodies
   * nothing refers to any more.
   */
  HISTORY_DAYS: [number(1, 36_500), 400],
  /** A worker that has not renewed its leases for this long loses its servers to others. */
  LEASE_SECONDS: [number(5), 30],
  /**
   * What `mcp-drift gateway` does with a tool changed since approval: `pin` keeps serving the
   * approved definition and refuses calls when the change relaxes a hint or attacks the
   * model; `quarantine` withholds it until approved (docs/gateway.md).
   */
  GATEWAY_POLICY: [oneOf(GATEWAY_POLICIES), 'pin' as GatewayPolicy],
} satisfies Record<string, readonly [Reader<unknown>, unknown]>;

type Fields = typeof CONFIG_FIELDS;
type ValueOf<F> = F extends readonly [Reader<infer T>, infer D]
  ? D extends undefined
    ? T | undefined
    : T
  : never;

export type Config = { [K in keyof Fields]: ValueOf<Fields[K]> } & {
  /** Filled from ALERT_MIN_SEVERITY when unset. */
  SLACK_MIN_SEVERITY: Severity;
  WEBHOOK_MIN_SEVERITY: Severity;
};

/**
 * Problems between fields, judged on the raw values so that they are listed together with
 * every other problem rather than after the rest is fixed.
 */
export function crossFieldProblems(input: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (input['WEBHOOK_URL'] !== undefined && input['WEBHOOK_SECRET'] === undefined) {
    problems.push(
      'WEBHOOK_SECRET must be set when WEBHOOK_URL is: webhook deliveries are signed with it',
    );
  }
  return problems;
}

/** Reads every variable; the problems are "NAME must …" sentences, all of them. */
export function parseConfig(
  input: Record<string, string | undefined>,
): { config: Config; problems: [] } | { config: null; problems: string[] } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, [read, fallback]] of Object.entries(CONFIG_FIELDS) as [
    string,
    readonly [Reader<unknown>, unknown],
  ][]) {
    const raw = input[name];
    if (raw === undefined) {
      values[name] = Array.isArray(fallback) ? [...fallback] : fallback;
      continue;
    }
    try {
      values[name] = read(raw);
    } catch (error) {
      if (!(error instanceof Unfit)) throw error;
      problems.push(`${name} ${error.message}`);
    }
  }
  problems.push(...crossFieldProblems(input));
  if (problems.length > 0) return { config: null, problems };
  const config = values as Config;
  config.SLACK_MIN_SEVERITY ??= config.ALERT_MIN_SEVERITY;
  config.WEBHOOK_MIN_SEVERITY ??= config.ALERT_MIN_SEVERITY;
  return { config, problems: [] };
}
