import type { Config } from '../config/schema.js';
import { tokenCipher } from '../config/secret-key.js';
import type { Database } from '../db/client.js';
import type { OAuthTokenStore } from '../mcp/index.js';
import type { TokenCipher } from '../token-cipher.js';
import {
  loadClientInformation,
  loadTokens,
  markNeedsLogin,
  saveClientInformation,
  saveTokens,
} from './oauth-tokens-repo.js';
import type { ServerSpec } from './server-spec.js';

/*
 * The token store a connection to a server behind a login uses (docs/oauth.md): the
 * sealed `oauth_tokens` row of that server.
 */

export interface TokenStoreHooks {
  /** The server just went from authorized to `needs_login` (once, whoever noticed). */
  onNeedsLogin?: () => Promise<void>;
}

export function oauthTokenStore(
  db: Database,
  cipher: TokenCipher,
  serverId: number,
  hooks: TokenStoreHooks = {},
): OAuthTokenStore {
  return {
    load: () => loadTokens(db, cipher, serverId),
    save: (tokens) => saveTokens(db, cipher, serverId, tokens),
    loadClient: () => loadClientInformation(db, cipher, serverId),
    saveClient: (information) => saveClientInformation(db, cipher, serverId, information),
    async refused(refreshToken) {
      const stored = await loadTokens(db, cipher, serverId);
      if (stored && refreshToken !== null && stored.refreshToken !== refreshToken) return;
      if (await markNeedsLogin(db, serverId)) await hooks.onNeedsLogin?.();
    },
  };
}

/** Whether the server is watched with a person's login (its tokens are in the registry). */
export function usesLogin(server: Pick<ServerSpec, 'oauth'>): boolean {
  return server.oauth?.grant === 'authorization_code';
}

/** The store of a server behind a login; undefined for every other server. */
export function loginTokenStore(
  db: Database,
  config: Config,
  server: Pick<ServerSpec, 'oauth'> & { id: number },
  hooks: TokenStoreHooks = {},
): OAuthTokenStore | undefined {
  if (!usesLogin(server)) return undefined;
  return oauthTokenStore(db, tokenCipher(config), server.id, hooks);
}
