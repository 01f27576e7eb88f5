import { maskQuerySecrets } from '../log-lines.js';
import { maskAlertUrl } from '../config/alert-url.js';
import type { ServerRow } from '../db/schema.js';
import { maskValue, maskValues } from './redact.js';
import { maskArguments } from './secrets.js';

/**
 * A registration as it may be shown, by the CLI (`--json` prints it as is) or any other
 * reader: literal header and env values, a URL's password, and what looks like a secret
 * in a stdio command line (secrets.ts) never appear.
 */
export interface ServerView {
  name: string;
  transport: ServerRow['transport'];
  command: string | null;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  url: string | null;
  headers: Record<string, string>;
  trust: ServerRow['trust'];
  /** null: the service's default schedule, which `effectiveSchedule` spells out. */
  schedule: string | null;
  effectiveSchedule: string;
  notify: string[];
  /** This server's own Slack and webhook URLs, their secret paths masked. */
  slack: string | null;
  webhook: string | null;
  alertMinSeverity: ServerRow['alertMinSeverity'];
  hold: boolean;
  /** Whether the service keeps a session open (docs/design.md §2: http and sse always). */
  held: boolean;
  enabled: boolean;
  protocolEra: ServerRow['protocolEra'];
  /** OAuth settings: the client secret is a `${VAR}` reference, never a value (docs/oauth.md). */
  oauth: ServerRow['oauth'];
  /**
   * A server watched with a person's login: where it stands (`server show` only; never a
   * token). Absent from lists; null before any login.
   */
  login?: LoginView | null;
  /** The client identities each probe also lists as (docs/design.md §4). */
  alsoAs: string[];
  createdAt: string;
  updatedAt: string;
}

export interface LoginView {
  state: 'authorized' | 'needs_login';
  authorizationServer: string | null;
  scope: string | null;
  expiresAt: string | null;
}

/** What a view needs from the configuration: the schedule a server without one follows. */
export interface ViewDefaults {
  schedule: string;
}

export function serverView(row: ServerRow, defaults: ViewDefaults): ServerView {
  return {
    name: row.name,
    transport: row.transport,
    command: row.command,
    args: maskArguments(row.args),
    env: maskValues(row.env),
    cwd: row.cwd,
    url: row.url === null ? null : maskUrl(row.url),
    headers: maskValues(row.headers),
    trust: row.trust,
    schedule: row.schedule,
    effectiveSchedule: row.schedule ?? defaults.schedule,
    notify: row.notify,
    slack: row.slackUrl === null ? null : maskAlertUrl(row.slackUrl),
    webhook: row.webhookUrl === null ? null : maskAlertUrl(row.webhookUrl),
    alertMinSeverity: row.alertMinSeverity,
    hold: row.hold,
    held: row.transport !== 'stdio' || row.hold,
    enabled: row.enabled,
    protocolEra: row.protocolEra,
    oauth: row.oauth,
    alsoAs: row.alsoAs,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function maskUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = maskValue(decodeURIComponent(parsed.password));
  return maskQuerySecrets(parsed.toString());
}
