import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { ConnectSpec, Era, OAuthTokenStore, ProbeOptions } from '../mcp/index.js';
import type { ServerSpec } from '../registry/server-spec.js';

/*
 * How to probe a registration: what the watch service, `check`, `lock` and `verify` pass
 * to probe(). Apart from observe-server.ts, which records what it saw, so that the
 * commands that record nothing load no database code.
 */

export function connectSpecOf(server: ServerSpec & { protocolEra?: Era | null }): ConnectSpec {
  return {
    name: server.name,
    transport: server.transport,
    command: server.command ?? undefined,
    args: server.args,
    env: server.env,
    cwd: server.cwd ?? undefined,
    url: server.url ?? undefined,
    headers: server.headers,
    era: server.protocolEra ?? null,
    oauth: server.oauth ?? null,
  };
}

export function probeOptionsOf(
  config: Config,
  env: Environment,
  signal?: AbortSignal,
  oauthTokens?: OAuthTokenStore,
): ProbeOptions {
  return {
    env,
    ...(oauthTokens ? { oauthTokens } : {}),
    timeoutMs: config.REQUEST_TIMEOUT_MS,
    caps: {
      maxPages: config.LISTING_MAX_PAGES,
      maxTools: config.LISTING_MAX_TOOLS,
      maxBytes: config.LISTING_MAX_BYTES,
    },
    signal,
  };
}
