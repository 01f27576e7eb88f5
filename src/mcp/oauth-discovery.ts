import {
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  type OAuthServerInfo,
} from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';

/*
 * Where a server behind OAuth sends us for tokens, learned from the server alone
 * (docs/oauth.md): a request without a token is answered 401 with `WWW-Authenticate`
 * naming the protected-resource metadata (RFC 9728), which names the authorization server,
 * whose metadata (RFC 8414 / OpenID discovery) names its endpoints.
 */

export interface DiscoveredAuthorization {
  info: OAuthServerInfo;
  /** The RFC 8707 resource indicator: the metadata's `resource`, else the server's URL. */
  resource: string;
  /** What the 401 or the metadata ask for, space-separated; undefined: nothing said. */
  scope: string | undefined;
}

const DISCOVERY_TIMEOUT_MS = 15_000;

export async function discoverFromChallenge(serverUrl: URL): Promise<DiscoveredAuthorization> {
  let challenge: ReturnType<typeof extractWWWAuthenticateParams>;
  try {
    const response = await fetch(serverUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
    void response.body?.cancel().catch(() => {});
    if (response.status !== 401) {
      throw new DriftError(
        'REMOTE_PROTOCOL',
        `${serverUrl.origin}${serverUrl.pathname} answered ${response.status} to a request without a token, not 401: it does not ask for an OAuth login`,
      );
    }
    challenge = extractWWWAuthenticateParams(response);
  } catch (error) {
    if (error instanceof DriftError) throw error;
    throw new DriftError(
      'REMOTE_UNREACHABLE',
      `could not reach ${serverUrl.origin}${serverUrl.pathname}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return discoverAuthorization(serverUrl, challenge.resourceMetadataUrl, challenge.scope);
}

/** Without a 401 at hand (a refresh): the well-known metadata locations of RFC 9728. */
export async function discoverAuthorization(
  serverUrl: URL,
  resourceMetadataUrl?: URL,
  challengeScope?: string,
): Promise<DiscoveredAuthorization> {
  let info: OAuthServerInfo;
  try {
    info = await discoverOAuthServerInfo(serverUrl, { resourceMetadataUrl });
  } catch (error) {
    throw new DriftError(
      'REMOTE_PROTOCOL',
      `discovering the authorization server of ${serverUrl.origin}${serverUrl.pathname} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!info.authorizationServerMetadata) {
    throw new DriftError(
      'REMOTE_PROTOCOL',
      `the authorization server ${info.authorizationServerUrl} publishes no metadata (RFC 8414 or OpenID discovery)`,
    );
  }
  return {
    info,
    resource: info.resourceMetadata?.resource ?? serverUrl.href,
    scope: challengeScope ?? info.resourceMetadata?.scopes_supported?.join(' '),
  };
}
