import type { OAuthSettings } from '../vocabulary/oauth-grants.js';

export type { OAuthSettings };

/**
 * How to reach one MCP server. Mirrors the registered server (docs/design.md §2) minus what only the
 * watcher needs (schedule, recipients, trust).
 *
 * `headers` and `env` values may contain `${VAR}` references; they are resolved from the
 * environment map the caller passes at connect time (see resolveReferences), so secrets
 * never need to be stored.
 */
export interface ConnectSpec {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  /** stdio: the executable and its arguments, spawned without a shell. */
  command?: string;
  args?: string[];
  /** stdio: merged over the SDK's minimal default environment (HOME, PATH, …), not ours. */
  env?: Record<string, string>;
  cwd?: string;
  /** http/sse: the Streamable HTTP endpoint, or the legacy SSE stream URL. */
  url?: string;
  headers?: Record<string, string>;
  /**
   * The protocol era learned on an earlier connection. Unknown (`null`/absent) costs a
   * `server/discover` probe; known lets the client connect in that era directly.
   */
  era?: Era | null;
  /** http/sse: the server sits behind OAuth (docs/oauth.md); null or absent: it does not. */
  oauth?: OAuthSettings | null;
}

/** The two protocol eras: 2025 (`initialize`, sessions) and 2026 (2026-07-28, `server/discover`). */
export type Era = '2025' | '2026';

/** The revision a known-2026 connection pins; the SDK's `{ pin }` mode needs an exact one. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The environment `${VAR}` references resolve from; `process.env` fits, but is never implied. */
export type EnvironmentMap = Readonly<Record<string, string | undefined>>;
