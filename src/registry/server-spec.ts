import { cronProblem, isValidCron } from '../cron-expression.js';
import { SEVERITIES, type Severity } from '../diff/severity.js';
import { TRUST_LEVELS, type TrustLevel } from '../diff/types.js';
import { alertUrlProblem } from '../config/alert-url.js';
import { isEmailAddress } from '../email-address.js';
import { DriftError } from '../errors.js';
import type { OAuthSettings } from '../mcp/index.js';
import { OAUTH_GRANTS, type OAuthGrant } from '../vocabulary/oauth-grants.js';

/*
 * What a server registration may hold, validated in full before anything is written.
 * Pure: no database, no environment. `${VAR}` references in header and env values are
 * checked for form here and resolved only when the service connects.
 */

export { TRANSPORTS, type Transport } from '../vocabulary/transports.js';
import type { Transport } from '../vocabulary/transports.js';

export interface ServerSpec {
  name: string;
  transport: Transport;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  url: string | null;
  headers: Record<string, string>;
  trust: TrustLevel;
  /** null: the service's DEFAULT_SCHEDULE. */
  schedule: string | null;
  notify: string[];
  /** This server's own Slack incoming-webhook URL and webhook URL, beside the global ones. */
  slackUrl: string | null;
  webhookUrl: string | null;
  hold: boolean;
  /** Per-server override of ALERT_MIN_SEVERITY; null: the global one. */
  alertMinSeverity: Severity | null;
  /** An http or sse server behind OAuth (docs/oauth.md); null: none. */
  oauth?: OAuthSettings | null;
  /** Client identities (`NAME/VERSION`) each probe also lists as; empty: only mcp-drift. */
  alsoAs?: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * `${NAME}`, or `${NAME:-default}` (the default when NAME is unset or empty, as Claude
 * Code's configs write it); a `$` not followed by a well-formed reference is taken literally.
 */
export const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function invalid(message: string): DriftError {
  return new DriftError('INVALID_INPUT', message);
}

export function checkName(name: string): string {
  if (!NAME.test(name)) {
    throw invalid(
      `invalid server name "${name}": use 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit`,
    );
  }
  return name;
}

/** `K=V` pairs from repeated flags; a later pair for the same key replaces the earlier. */
export function parsePairs(pairs: string[], flag: '--header' | '--env'): Record<string, string> {
  const keyPattern = flag === '--header' ? HEADER_NAME : ENV_NAME;
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !keyPattern.test(key)) {
      throw invalid(
        `invalid ${flag} "${key}${eq < 0 ? '' : '=…'}": write ${flag} ${flag === '--header' ? 'Name' : 'NAME'}=VALUE` +
          (flag === '--env'
            ? ' with a variable name of letters, digits and _'
            : ' with a valid HTTP header name'),
      );
    }
    const value = pair.slice(eq + 1);
    if (/[\r\n\0]/.test(value))
      throw invalid(`invalid ${flag} ${key}: the value holds a line break or NUL`);
    const malformed = value.replace(REFERENCE, '').match(/\$\{[^}]*\}?/);
    if (malformed) {
      throw invalid(
        `invalid ${flag} ${key}: "${malformed[0]}" is not a \${VAR} reference (letters, digits and _)`,
      );
    }
    result[key] = value;
  }
  return result;
}

/**
 * An http(s) URL without credentials. `user:password@` is refused rather than kept: the
 * registry would store the password, `history` and the logs would show it in every
 * reason that names the URL, and fetch refuses such URLs anyway. Credentials go in a
 * header whose value is a `${VAR}` reference, resolved at connect time and never stored.
 * (A registration stored with one before this check is still connected: see
 * createTransport.) Messages never repeat the password.
 */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(
      `invalid --url "${withoutPassword(url)}": not a URL; write e.g. --url http://127.0.0.1:3001/mcp`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = '';
    parsed.password = '';
    throw invalid(
      `invalid --url: it carries credentials (user:password@), which would be stored in the registry; ` +
        `register --url ${parsed.href} and pass them as a header instead: ` +
        `--header 'Authorization=Basic \${BASIC_AUTH}', with BASIC_AUTH set to the base64 of user:password ` +
        'in the environment of serve and check',
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid(
      `invalid --url "${url}": the scheme must be http or https, not ${parsed.protocol.replace(/:$/, '')}`,
    );
  }
  return url;
}

/** A URL-ish text with whatever sits between `://…:` and `@` masked. */
function withoutPassword(url: string): string {
  return url.replace(/^([^:/?#]*:\/\/[^/?#@:]*):[^/?#@]*@/, '$1:****@');
}

export function checkSchedule(schedule: string): string {
  if (!isValidCron(schedule)) {
    throw invalid(
      `invalid --schedule "${schedule}": ${cronProblem(schedule)}; write e.g. '*/5 * * * *' (every 5 minutes)`,
    );
  }
  return schedule;
}

export function checkTrust(trust: string): TrustLevel {
  if (!(TRUST_LEVELS as readonly string[]).includes(trust)) {
    throw invalid(`invalid --trust "${trust}": use one of ${TRUST_LEVELS.join(', ')}`);
  }
  return trust as TrustLevel;
}

export function checkSeverity(flag: string, severity: string): Severity {
  if (!(SEVERITIES as readonly string[]).includes(severity)) {
    throw invalid(`invalid ${flag} "${severity}": use one of ${SEVERITIES.join(', ')}`);
  }
  return severity as Severity;
}

export function checkTransport(transport: string): 'http' | 'sse' {
  if (transport !== 'http' && transport !== 'sse') {
    throw invalid(
      `invalid --transport "${transport}": use http (Streamable HTTP) or sse (legacy HTTP+SSE)`,
    );
  }
  return transport;
}

/** `--slack URL` or `--webhook URL`: https, or http to loopback (alert-url.ts). */
export function checkAlertUrl(flag: '--slack' | '--webhook', value: string): string {
  const problem = alertUrlProblem(value);
  if (problem !== null) throw invalid(`invalid ${flag}: ${problem}`);
  return value;
}

export function checkEmails(addresses: string[]): string[] {
  for (const address of addresses) {
    if (!isEmailAddress(address)) {
      throw invalid(`invalid --notify "${address}": not an email address`);
    }
  }
  return [...new Set(addresses)];
}

/** `--oauth-grant client-credentials|authorization-code` (underscores accepted too). */
export function checkOAuthGrant(grant: string): OAuthGrant {
  const stored = grant.replaceAll('-', '_');
  if (!(OAUTH_GRANTS as readonly string[]).includes(stored)) {
    throw invalid(
      `invalid --oauth-grant "${grant}": use ${OAUTH_GRANTS.map((name) => name.replaceAll('_', '-')).join(' or ')}`,
    );
  }
  return stored as OAuthGrant;
}

const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * The client secret is stored only as a `${VAR}` reference, resolved when connecting: a
 * literal would sit in the registry, its backups and every `--json` (docs/oauth.md).
 */
export function checkOAuthSecret(secret: string): string {
  if (!WHOLE_REFERENCE.test(secret)) {
    throw invalid(
      "invalid --oauth-client-secret: write it as a reference to an environment variable, e.g. --oauth-client-secret '${MCP_CLIENT_SECRET}' (in single quotes), and set that variable where mcp-drift runs; a literal secret is never stored",
    );
  }
  return secret;
}

/** An OAuth scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\\`. */
export function checkOAuthScope(scope: string): string {
  if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
    throw invalid(`invalid --oauth-scope "${scope}": one scope per flag, without spaces or quotes`);
  }
  return scope;
}

/** What each grant needs: client credentials have no person to log in, so no registration. */
export function checkOAuthFields(oauth: OAuthSettings): OAuthSettings {
  if (oauth.grant === 'client_credentials' && (!oauth.clientId || !oauth.clientSecret)) {
    throw invalid(
      "--oauth-grant client-credentials needs --oauth-client-id ID and --oauth-client-secret '${VAR}'",
    );
  }
  return oauth;
}

/**
 * Fields that belong to one kind of transport must not be given for the other: a header
 * on a stdio server would be silently ignored, which hides a mistake.
 */
export function checkTransportFields(spec: ServerSpec): ServerSpec {
  if (spec.transport === 'stdio') {
    if (!spec.command) {
      throw invalid(
        '--stdio needs a command after --: e.g. --stdio -- npx @modelcontextprotocol/server-filesystem /tmp',
      );
    }
    if (Object.keys(spec.headers).length > 0)
      throw invalid('--header applies to --url servers, not --stdio');
    if (spec.oauth) throw invalid('OAuth applies to --url servers, not --stdio');
  } else {
    if (!spec.url) throw invalid('give --url URL or --stdio -- COMMAND [ARGS…]');
    if (Object.keys(spec.env).length > 0)
      throw invalid('--env applies to --stdio servers, not --url');
    if (spec.cwd !== null) throw invalid('--cwd applies to --stdio servers, not --url');
    if (spec.hold)
      throw invalid('--hold applies to --stdio servers; http and sse servers are always held');
    if (spec.oauth) checkOAuthFields(spec.oauth);
  }
  return spec;
}

const IDENTITY = /^[A-Za-z0-9][A-Za-z0-9 ._@:+-]{0,63}(\/[A-Za-z0-9][A-Za-z0-9._+-]{0,31})?$/;

/** `--also-as NAME[/VERSION]`: a clientInfo identity to list as besides mcp-drift's own. */
export function checkIdentities(values: readonly string[]): string[] {
  for (const value of values) {
    if (!IDENTITY.test(value)) {
      throw invalid(
        `invalid --also-as "${value}": give NAME or NAME/VERSION (letters, digits, . _ - +)`,
      );
    }
  }
  return [...new Set(values)];
}
