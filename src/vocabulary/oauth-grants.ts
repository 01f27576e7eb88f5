/**
 * How mcp-drift obtains an access token for a server behind OAuth (docs/oauth.md):
 * a person's login (authorization code with PKCE) or the client's own credentials.
 */
export const OAUTH_GRANTS = ['authorization_code', 'client_credentials'] as const;
export type OAuthGrant = (typeof OAUTH_GRANTS)[number];

/**
 * How to obtain an access token. Nothing here is a secret: the client secret is a `${VAR}`
 * reference, resolved at connect time like a header value. The authorization server is
 * not configured: it is discovered from the server's 401 (RFC 9728, then RFC 8414).
 */
export interface OAuthSettings {
  grant: OAuthGrant;
  /** null: dynamic client registration (authorization code only). */
  clientId: string | null;
  /** A `${VAR}` reference, never a value. */
  clientSecret: string | null;
  /** Scopes to ask for; empty: what the protected-resource metadata advertises. */
  scopes: string[];
}

/**
 * Where a server's authorization stands: tokens to use, or a refresh the authorization
 * server refused (`needs_login`: the watcher waits for `server login` or `server edit`).
 */
export const OAUTH_STATES = ['authorized', 'needs_login'] as const;
export type OAuthStateName = (typeof OAUTH_STATES)[number];
