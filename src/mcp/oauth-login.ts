import {
  exchangeAuthorization,
  OAuthError,
  registerClient,
  startAuthorization,
  validateAuthorizationResponseIssuer,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';
import { redactFromLogs } from '../log-lines.js';
import type { AuthorizationAnswer } from './loopback-redirect.js';
import { discoverFromChallenge } from './oauth-discovery.js';
import type { OAuthTokenSet } from './oauth-tokens.js';

/*
 * A person's login to a server behind OAuth (authorization code with PKCE, docs/oauth.md):
 * discovery from the server's 401, the client (pre-registered, or registered dynamically
 * per RFC 7591 when the authorization server offers it), the authorization URL with a
 * fresh state and PKCE challenge and the resource indicator (RFC 8707), and the exchange of
 * the code the redirect brings back.
 */

export interface LoginClientSettings {
  /** Pre-registered; null: the stored dynamic registration, else a new one. */
  clientId: string | null;
  /** The resolved secret of a pre-registered confidential client. */
  clientSecret: string | undefined;
  scopes: string[];
  /** A client this server's authorization server registered for us before. */
  registered: Record<string, unknown> | null;
}

export interface StartedLogin {
  authorizationUrl: URL;
  state: string;
  authorizationServer: string;
  /** Set when this login registered a client: store it for refreshes and later logins. */
  registeredClient: Record<string, unknown> | null;
  /** Exchanges the code the redirect brought (its state already checked) for tokens. */
  finish(answer: AuthorizationAnswer): Promise<OAuthTokenSet>;
}

/** What mcp-drift registers as (RFC 7591): a native app with a loopback redirect. */
export function loginClientMetadata(redirectUrl: string, scope?: string): OAuthClientMetadata {
  return {
    client_name: 'mcp-drift',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    ...(scope ? { scope } : {}),
  };
}

/** `state`: what the redirect must bring back (the loopback listener checks it). */
export async function startLogin(
  serverUrl: URL,
  client: LoginClientSettings,
  redirectUrl: string,
  state: string,
): Promise<StartedLogin> {
  const discovered = await discoverFromChallenge(serverUrl);
  const { info, resource } = discovered;
  const metadata = info.authorizationServerMetadata;
  const scope = client.scopes.length > 0 ? client.scopes.join(' ') : discovered.scope;
  let registeredClient: Record<string, unknown> | null = null;
  let clientInformation: OAuthClientInformationMixed;
  if (client.clientId !== null) {
    clientInformation = {
      client_id: client.clientId,
      ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
    };
  } else if (client.registered && sameIssuer(client.registered, metadata?.issuer)) {
    clientInformation = client.registered as OAuthClientInformationMixed;
  } else {
    if (!metadata?.registration_endpoint) {
      throw new DriftError(
        'CONFIG_INVALID',
        `the authorization server ${info.authorizationServerUrl} offers no dynamic client registration: register a client there (redirect URI http://127.0.0.1/callback, any port) and give --oauth-client-id`,
      );
    }
    const registered = await oauthStep('registering a client', () =>
      registerClient(info.authorizationServerUrl, {
        metadata,
        clientMetadata: loginClientMetadata(redirectUrl, scope),
      }),
    );
    registeredClient = { ...registered, issuer: metadata.issuer };
    clientInformation = registered;
  }
  redactFromLogs([clientInformation.client_secret]);
  const { authorizationUrl, codeVerifier } = await oauthStep('starting the login', () =>
    startAuthorization(info.authorizationServerUrl, {
      metadata,
      clientInformation,
      redirectUrl,
      scope,
      state,
      resource,
    }),
  );
  return {
    authorizationUrl,
    state,
    authorizationServer: metadata?.issuer ?? info.authorizationServerUrl,
    registeredClient,
    async finish(answer) {
      validateAuthorizationResponseIssuer({
        iss: answer.iss,
        expectedIssuer: metadata?.issuer,
        issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true,
      });
      const tokens = await oauthStep('exchanging the code', () =>
        exchangeAuthorization(info.authorizationServerUrl, {
          metadata,
          clientInformation,
          authorizationCode: answer.code,
          iss: answer.iss,
          codeVerifier,
          redirectUri: redirectUrl,
          resource,
        }),
      );
      return tokenSetOf(tokens, metadata?.issuer ?? info.authorizationServerUrl);
    },
  };
}

export function tokenSetOf(
  tokens: OAuthTokens,
  authorizationServer: string,
  now = Date.now(),
): OAuthTokenSet {
  redactFromLogs([tokens.access_token, tokens.refresh_token]);
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
    expiresAt: tokens.expires_in === undefined ? null : new Date(now + tokens.expires_in * 1000),
    scope: tokens.scope ?? null,
    authorizationServer,
  };
}

function sameIssuer(registered: Record<string, unknown>, issuer: string | undefined): boolean {
  return (
    issuer === undefined || registered['issuer'] === undefined || registered['issuer'] === issuer
  );
}

/** An authorization server's refusal, said as such; the SDK's messages carry no token. */
async function oauthStep<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DriftError) throw error;
    const code = error instanceof OAuthError ? 'REMOTE_PROTOCOL' : 'REMOTE_UNREACHABLE';
    throw new DriftError(
      code,
      `${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
