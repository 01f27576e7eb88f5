import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';
import { redactFromLogs } from '../log-lines.js';

/*
 * The SDK's OAuth client provider interface for a server registered with
 * `--oauth-grant client-credentials` (docs/oauth.md). The transport hands it to the SDK,
 * which on the server's 401 discovers the protected-resource metadata (RFC 9728) and the
 * authorization server (RFC 8414 / OpenID discovery) and asks for a token with the RFC 8707
 * resource indicator: nothing but the server URL is configured. Tokens live in this object,
 * for the life of one connection; a held session asks for a new one before the old expires.
 */

/** What a connection learned about its authorization; never a token. */
export interface OAuthState {
  /** The issuer discovered from the server's 401; null until then. */
  authorizationServer: string | null;
  /** When the current access token expires, if the authorization server said. */
  expiresAt: Date | null;
  /** The scope granted, as the token response gave it. */
  scope: string | null;
}

/**
 * How long before its expiry an access token is no longer sent: the next request then
 * gets a fresh one rather than a 401 on a token that expired on the way.
 */
export const EXPIRY_MARGIN_MS = 10_000;

export interface MachineCredentials {
  clientId: string;
  /** The resolved value: held in memory only, masked in every log line. */
  clientSecret: string;
  scopes: string[];
}

export class ClientCredentialsOAuth implements OAuthClientProvider {
  readonly learned: OAuthState = { authorizationServer: null, expiresAt: null, scope: null };
  private stored: StoredOAuthTokens | undefined;

  constructor(
    private readonly credentials: MachineCredentials,
    private readonly now: () => number = Date.now,
  ) {
    redactFromLogs([credentials.clientSecret]);
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-drift',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(this.credentials.scopes.length > 0 ? { scope: this.credentials.scopes.join(' ') } : {}),
    };
  }

  clientInformation(): StoredOAuthClientInformation {
    return { client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret };
  }

  /**
   * Without a context this is the transport's read before each request: a token about to
   * expire is withheld, so the request's 401 fetches a new one (the SDK retries once).
   */
  tokens(context?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    if (context) return this.stored;
    const expiresAt = this.learned.expiresAt?.getTime();
    if (expiresAt !== undefined && expiresAt - EXPIRY_MARGIN_MS <= this.now()) return undefined;
    return this.stored;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    redactFromLogs([tokens.access_token, tokens.refresh_token]);
    this.stored = tokens;
    this.learned.expiresAt =
      tokens.expires_in === undefined ? null : new Date(this.now() + tokens.expires_in * 1000);
    this.learned.scope = tokens.scope ?? null;
    if (tokens.issuer) this.learned.authorizationServer = tokens.issuer;
  }

  saveAuthorizationServerUrl(issuer: string): void {
    this.learned.authorizationServer = issuer;
  }

  redirectToAuthorization(): never {
    throw new DriftError(
      'REMOTE_PROTOCOL',
      'the authorization server asked for a login, which client credentials never do',
    );
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new DriftError('REMOTE_PROTOCOL', 'client credentials use no PKCE verifier');
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }
}
