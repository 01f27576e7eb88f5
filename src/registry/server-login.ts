import { randomBytes } from 'node:crypto';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { tokenCipher } from '../config/secret-key.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import { listenForRedirect, resolveReferences, startLogin } from '../mcp/index.js';
import { OAUTH_SECRET_KEY } from '../mcp/resolve-references.js';
import {
  loadClientInformation,
  oauthStatus,
  saveClientInformation,
  saveTokens,
  type OAuthStatus,
} from './oauth-tokens-repo.js';
import { usesLogin } from './oauth-token-store.js';
import { getServer, touchServer } from './servers-repo.js';

/*
 * `server login NAME` (docs/oauth.md): a person logs in to a server registered with
 * `--oauth` in a browser; the tokens the authorization server issues are sealed into the
 * registry, and the watcher of that server starts again with them (its registration's
 * version moves), whether it was waiting in `needs_login` or never had a token.
 */

/** How long a login waits for the browser to come back. */
export const LOGIN_TIMEOUT_MS = 10 * 60_000;

export interface LoginOptions {
  config: Config;
  env: Environment;
  signal: AbortSignal;
  /** Runs the database work; a login holds no database open while the person is in the browser. */
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  /** The URL the person opens; called once the redirect listener is up. */
  onAuthorizationUrl(url: string): void | Promise<void>;
  timeoutMs?: number;
}

export async function loginToServer(name: string, options: LoginOptions): Promise<OAuthStatus> {
  const cipher = tokenCipher(options.config);
  const { server, registered } = await options.withDatabase(async (db) => {
    const server = await getServer(db, name);
    if (!usesLogin(server) || !server.url) {
      throw new DriftError(
        'USAGE',
        `server "${server.name}" is not registered for a login: \`mcp-drift server edit ${server.name} --oauth\` first (docs/oauth.md)`,
      );
    }
    const registered =
      server.oauth?.clientId == null ? await loadClientInformation(db, cipher, server.id) : null;
    return { server, registered };
  });
  const oauth = server.oauth!;
  const secret =
    oauth.clientSecret === null
      ? undefined
      : resolveReferences(
          { [OAUTH_SECRET_KEY]: oauth.clientSecret },
          options.env,
          () => 'the OAuth client secret',
        )[OAUTH_SECRET_KEY];
  const state = randomBytes(24).toString('base64url');
  const timeout = AbortSignal.timeout(options.timeoutMs ?? LOGIN_TIMEOUT_MS);
  const redirect = await listenForRedirect({
    state,
    signal: AbortSignal.any([options.signal, timeout]),
  });
  try {
    const started = await startLogin(
      new URL(server.url!),
      { clientId: oauth.clientId, clientSecret: secret, scopes: oauth.scopes, registered },
      redirect.redirectUrl,
      state,
    );
    if (started.registeredClient) {
      const client = started.registeredClient;
      await options.withDatabase((db) => saveClientInformation(db, cipher, server.id, client));
    }
    await options.onAuthorizationUrl(started.authorizationUrl.href);
    const answer = await redirect.answer.catch((error: unknown) => {
      if (timeout.aborted && !options.signal.aborted) {
        throw new DriftError(
          'REMOTE_TIMEOUT',
          `nobody completed the login of ${server.name} within ${Math.round((options.timeoutMs ?? LOGIN_TIMEOUT_MS) / 60_000)} minutes`,
        );
      }
      throw error;
    });
    const tokens = await started.finish(answer);
    return await options.withDatabase(async (db) => {
      await saveTokens(db, cipher, server.id, tokens);
      await touchServer(db, server.id);
      return (await oauthStatus(db, server.id))!;
    });
  } finally {
    await redirect.close();
  }
}
