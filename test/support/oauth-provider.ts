import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors, type JWK } from 'oidc-provider';

/*
 * A real authorization server for the OAuth tests: oidc-provider (a certified OpenID
 * provider) on a loopback port of the test process. Dynamic registration, client
 * credentials, authorization code + PKCE, refresh tokens, revocation and resource
 * indicators (RFC 8707) are on; tokens for the one MCP resource it knows are JWTs with the
 * given (short) lifetime. Its own login and consent pages (devInteractions) accept any
 * login name, which is what headless Chromium fills in.
 */

export interface OAuthProviderOptions {
  /** The MCP server's URL: the one resource indicator the provider issues tokens for. */
  resource: string;
  /** Access-token lifetime in seconds (authorization code and client credentials). */
  accessTokenTtl?: number;
}

/** One token issued at the token endpoint, by grant type, for counting refreshes. */
export interface IssuedToken {
  grantType: string;
  clientId: string;
  at: number;
}

export interface OAuthProvider {
  /** e.g. http://127.0.0.1:41234 (the issuer, without a trailing slash). */
  issuer: string;
  /** A pre-registered confidential client allowed the client_credentials grant only. */
  machineClient: { clientId: string; clientSecret: string };
  /** Every successful token-endpoint grant, in order. */
  issued: IssuedToken[];
  /** The refresh tokens issued so far (values), newest last. */
  refreshTokens: string[];
  /** Every access token value issued so far, as the client saw it (for the leak greps). */
  accessTokens: string[];
  /** The JWKS the provider signs with (public part), for the resource server. */
  jwksUrl: string;
  /** Revokes every refresh token issued so far (as an administrator would). */
  revokeRefreshTokens(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOAuthProvider(options: OAuthProviderOptions): Promise<OAuthProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const ttl = options.accessTokenTtl ?? 300;
  const machineClient = {
    clientId: 'drift-machine',
    clientSecret: `cs-${randomBytes(18).toString('base64url')}`,
  };
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    format: 'jwk',
  }) as JWK;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: machineClient.clientId,
        client_secret: machineClient.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    scopes: ['openid', 'offline_access', 'mcp'],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== options.resource) throw new errors.InvalidTarget();
          return {
            scope: 'mcp',
            audience: options.resource,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // A refresh token for every authorization-code client that registered the grant, with
    // or without offline_access (which the provider drops unless prompt=consent).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      RefreshToken: 24 * 3600,
      AuthorizationCode: 120,
      Grant: 24 * 3600,
      Interaction: 600,
      Session: 24 * 3600,
      IdToken: ttl,
    },
    // The tests drive the pages over plain http on loopback.
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });

  const issued: IssuedToken[] = [];
  const refreshTokens: string[] = [];
  const accessTokens: string[] = [];
  provider.on('grant.success', (ctx) => {
    const body = ctx.body as { access_token?: string; refresh_token?: string } | undefined;
    if (body?.access_token) accessTokens.push(body.access_token);
    if (body?.refresh_token) refreshTokens.push(body.refresh_token);
    issued.push({
      grantType: String(ctx.oidc.params?.grant_type ?? ''),
      clientId: ctx.oidc.client?.clientId ?? '',
      at: Date.now(),
    });
  });
  server.on('request', provider.callback());

  return {
    issuer,
    machineClient,
    issued,
    refreshTokens,
    accessTokens,
    jwksUrl: `${issuer}/jwks`,
    async revokeRefreshTokens() {
      for (const value of refreshTokens) {
        const token = await provider.RefreshToken.find(value);
        await token?.destroy();
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
