import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';
import { redactFromLogs } from '../log-lines.js';
import type { ConnectSpec, EnvironmentMap } from './connect-spec.js';
import { HttpGuard } from './http-guard.js';
import { LoginOAuth } from './login-oauth.js';
import { ClientCredentialsOAuth } from './oauth-client.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import { OAUTH_SECRET_KEY, referencingField, resolveReferences } from './resolve-references.js';
import type { Spawner } from './spawn-helper.js';
import { StdioTransport } from './stdio-transport.js';

export interface CreatedTransport {
  transport: Transport;
  /** Set for stdio: the child, its exit status and output explain failures. */
  stdio?: StdioTransport;
  /** Set for Streamable HTTP: a 2025-era session is terminated (DELETE) on close. */
  streamableHttp?: StreamableHTTPClientTransport;
  /** Set for http and sse: bounds what is read, and says why it dropped the connection. */
  http?: HttpGuard;
  /**
   * Set for http: whether the URL answers a GET as an SSE stream, as a legacy HTTP+SSE
   * endpoint does (for the hint on a 400/404/405 from a server registered as http).
   */
  answersAsLegacySse?: () => Promise<boolean>;
  /** Names the server in error messages without secrets (no query string, no userinfo). */
  target: string;
  /** Set for a server behind OAuth: what the connection learned (never a token). */
  oauth?: ClientCredentialsOAuth | LoginOAuth;
}

export interface TransportSettings {
  environment: EnvironmentMap;
  maxMessageBytes: number;
  /** One tools/list page with more tools than this drops the connection before parsing. */
  maxTools?: number;
  closeGraceMs: number;
  /**
   * Change notifications taken off the wire before the SDK parses them (see http-guard.ts
   * and StdioTransport): they never reach the client's notification handlers.
   */
  onToolsListChanged?: () => void;
  /** Starts stdio servers (spawn-helper.ts); this process by default. */
  spawn?: Spawner;
  /** The stored tokens of a server a person logged in to (`--oauth`); none without a database. */
  oauthTokens?: OAuthTokenStore;
}

/**
 * Builds a fresh, unstarted transport for one connection attempt (a transport cannot be
 * reused after close). `${VAR}` references are resolved here, at connect time.
 */
export function createTransport(spec: ConnectSpec, settings: TransportSettings): CreatedTransport {
  if (spec.transport === 'stdio') {
    if (!spec.command) {
      throw new DriftError('INVALID_INPUT', `server "${spec.name}" uses stdio but has no command`);
    }
    const args = spec.args ?? [];
    const field = referencingField(spec);
    const env = resolveReferences(field.values, settings.environment, field.what);
    // A stdio server may print its environment on stderr, which reasons quote.
    redactFromLogs(Object.values(env));
    const stdio = new StdioTransport({
      command: spec.command,
      args,
      env,
      cwd: spec.cwd,
      maxMessageBytes: settings.maxMessageBytes,
      maxTools: settings.maxTools,
      closeGraceMs: settings.closeGraceMs,
      onToolsListChanged: settings.onToolsListChanged,
      spawn: settings.spawn,
    });
    return {
      transport: stdio,
      stdio,
      target: `server "${spec.name}" (${commandLine(spec.command, args)})`,
    };
  }

  if (spec.transport !== 'http' && spec.transport !== 'sse') {
    throw new DriftError(
      'INVALID_INPUT',
      `server "${spec.name}" has unknown transport ${JSON.stringify(spec.transport)}`,
    );
  }
  const url = parseUrl(spec);
  const field = referencingField(spec);
  const headers = resolveReferences(field.values, settings.environment, field.what);
  const oauth = oauthClient(spec, url, headers, settings.oauthTokens);
  moveCredentialsToHeader(url, headers);
  // Resolved values: a server may quote them back in an error that ends up in a log line.
  redactFromLogs(Object.values(headers));
  const target = `server "${spec.name}" (${url.origin}${url.pathname})`;
  const requestInit: RequestInit = { headers };
  let transport: Transport | undefined;
  const http = new HttpGuard({
    maxMessageBytes: settings.maxMessageBytes,
    maxTools: settings.maxTools,
    onToolsListChanged: settings.onToolsListChanged,
    // As over stdio: nothing after a message that broke the cap can be trusted.
    onFatal: () => void transport?.close().catch(() => {}),
  });
  const login = oauth instanceof LoginOAuth ? oauth : undefined;
  // A login's provider watches every status: a 401 on a token just refreshed ends it.
  const fetchThrough: typeof http.fetch = login
    ? async (input, init) => {
        const response = await http.fetch(input, init);
        login.sawStatus(response.status);
        return response;
      }
    : http.fetch;
  const options = { requestInit, fetch: fetchThrough, ...(oauth ? { authProvider: oauth } : {}) };
  if (spec.transport === 'sse') {
    transport = new SSEClientTransport(url, options);
    return { transport, http, target, oauth };
  }
  const streamableHttp = new StreamableHTTPClientTransport(url, options);
  transport = streamableHttp;
  const answersAsLegacySse = () => answersAsSse(url, headers);
  return { transport, streamableHttp, http, target, answersAsLegacySse, oauth };
}

/**
 * The OAuth client of a server registered behind OAuth. Its secret was resolved with the
 * headers (referencingField lists it under OAUTH_SECRET_KEY) and is taken out of them here,
 * so it is never sent as a header.
 */
function oauthClient(
  spec: ConnectSpec,
  url: URL,
  resolved: Record<string, string>,
  store: OAuthTokenStore | undefined,
): ClientCredentialsOAuth | LoginOAuth | undefined {
  const secret = resolved[OAUTH_SECRET_KEY];
  delete resolved[OAUTH_SECRET_KEY];
  if (!spec.oauth) return undefined;
  if (spec.oauth.grant === 'authorization_code') {
    if (!store) {
      throw new DriftError(
        'CONFIG_INVALID',
        `server "${spec.name}" is watched with a person's login, which only the registry keeps: use client credentials here (docs/oauth.md)`,
      );
    }
    return new LoginOAuth(
      {
        name: spec.name,
        serverUrl: new URL(url),
        clientId: spec.oauth.clientId,
        clientSecret: secret,
      },
      store,
    );
  }
  if (!spec.oauth.clientId || secret === undefined) {
    throw new DriftError(
      'CONFIG_INVALID',
      `server "${spec.name}" needs a login: run \`mcp-drift server login ${spec.name}\``,
    );
  }
  return new ClientCredentialsOAuth({
    clientId: spec.oauth.clientId,
    clientSecret: secret,
    scopes: spec.oauth.scopes,
  });
}

const SSE_SNIFF_TIMEOUT_MS = 2_000;

/** A GET that a legacy HTTP+SSE endpoint answers with its event stream; only headers are read. */
async function answersAsSse(url: URL, headers: Record<string, string>): Promise<boolean> {
  try {
    const response = await fetch(url, {
      headers: { ...headers, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(SSE_SNIFF_TIMEOUT_MS),
    });
    void response.body?.cancel().catch(() => {});
    const type = response.headers.get('content-type') ?? '';
    return response.ok && type.toLowerCase().startsWith('text/event-stream');
  } catch {
    return false;
  }
}

function parseUrl(spec: ConnectSpec): URL {
  if (!spec.url) {
    throw new DriftError(
      'INVALID_INPUT',
      `server "${spec.name}" uses ${spec.transport} but has no url`,
    );
  }
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new DriftError('INVALID_INPUT', `server "${spec.name}" has an invalid url`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DriftError(
      'INVALID_INPUT',
      `server "${spec.name}" has a ${url.protocol} url; use http: or https:`,
    );
  }
  return url;
}

/**
 * `server add` refuses `user:password@` in a URL (checkUrl), but a registration stored
 * before it did may have one. fetch refuses such a URL outright ("Request cannot be
 * constructed from a URL that includes credentials"), and the reason quoted the URL: the
 * credentials become the `Authorization: Basic` header they stand for (unless the
 * registration sets that header itself), and the URL is used without them.
 */
function moveCredentialsToHeader(url: URL, headers: Record<string, string>): void {
  if (url.username === '' && url.password === '') return;
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  redactFromLogs([password, url.password]);
  url.username = '';
  url.password = '';
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return;
  headers['Authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function commandLine(command: string, args: string[]): string {
  const line = [command, ...args].join(' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
