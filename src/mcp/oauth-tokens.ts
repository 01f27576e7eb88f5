/*
 * What a connection to a server behind an OAuth login (authorization code, docs/oauth.md)
 * needs from storage. The transport layer knows nothing of the database: the registry
 * implements this over the sealed `oauth_tokens` table.
 */

/** One token set, as the authorization server issued it; never logged or shown. */
export interface OAuthTokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scope: string | null;
  authorizationServer: string | null;
}

export interface OAuthTokenStore {
  /** The tokens to use, or null when there are none (never logged in, or `needs_login`). */
  load(): Promise<OAuthTokenSet | null>;
  /** After a login or a refresh: a rotated refresh token replaces the old one. */
  save(tokens: OAuthTokenSet): Promise<void>;
  /** A dynamically registered client (RFC 7591), if one was registered. */
  loadClient(): Promise<Record<string, unknown> | null>;
  saveClient(information: Record<string, unknown>): Promise<void>;
  /**
   * The authorization server refused a refresh, or the server refused a fresh token.
   * `refreshToken`: the one this connection held; when the store holds another (a newer
   * login, a rotation by another connection), the refusal is stale and ignored.
   */
  refused(refreshToken: string | null): Promise<void>;
}
