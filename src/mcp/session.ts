import {
  Client,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnsupportedProtocolVersionError,
  type Implementation,
  type ServerCapabilities,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import { isDriftError } from '../errors.js';
import {
  MODERN_PROTOCOL_VERSION,
  type ConnectSpec,
  type EnvironmentMap,
  type Era,
} from './connect-spec.js';
import { createTransport, type CreatedTransport } from './create-transport.js';
import { toDriftError } from './describe-failure.js';
import {
  DEFAULT_LISTING_CAPS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  listAllTools,
  type ListingCaps,
  type ToolListing,
} from './list-tools.js';
import { listPresentation, type PresentationListing } from './list-presentation.js';
import type { Spawner } from './spawn-helper.js';
import { LoginOAuth } from './login-oauth.js';
import type { OAuthTokenStore } from './oauth-tokens.js';

export interface SessionOptions {
  /** Where `${VAR}` references in headers and env resolve from. Required: never implied. */
  env: EnvironmentMap;
  /** Per request (probe, initialize, each page). Connecting may take two requests. */
  timeoutMs?: number;
  caps?: Partial<ListingCaps>;
  /** Aborts connecting. */
  signal?: AbortSignal;
  clientInfo?: Implementation;
  /** stdio: how long the child gets to exit after stdin closes before it is signalled. */
  closeGraceMs?: number;
  /** stdio: who starts the server's process (spawn-helper.ts); this process by default. */
  spawn?: Spawner;
  /** Transport and protocol errors once connected (a held session's liveness signal). */
  onError?: (error: Error) => void;
  /** The connection ended, whichever side ended it. Fires at most once. */
  onClose?: () => void;
  /**
   * `notifications/tools/list_changed`, from the first message on: attached before the
   * handshake, since a server may announce a change as soon as it is initialized, before
   * `openSession` returns (server-everything does, over stdio and SSE).
   */
  onToolsListChanged?: () => void;
  /** `notifications/prompts/list_changed` and `notifications/resources/list_changed`. */
  onOtherListChanged?: (method: string) => void;
  /** A server a person logged in to (`--oauth`): where its tokens are kept. */
  oauthTokens?: OAuthTokenStore;
}

/**
 * One live connection. `client` is the SDK client itself, so a held session can call
 * `client.listen({ toolsListChanged: true })` on a 2026 connection (the listen stream
 * dispatches to the same handler as 2025's unsolicited notifications: onToolsListChanged).
 */
export interface McpSession {
  readonly client: Client;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: Implementation | null;
  readonly capabilities: ServerCapabilities | null;
  readonly instructions: string | null;
  /** The stdio child's pid; null for HTTP. */
  readonly pid: number | null;
  /** Names the server in messages, without secrets. */
  readonly target: string;
  /** Every page of tools/list, raw, within the caps. Throws DriftError. */
  listTools(options?: { signal?: AbortSignal }): Promise<ToolListing>;
  /** Tools and every advertised surface, each complete (list-presentation.ts). Throws DriftError. */
  listPresentation(options?: { signal?: AbortSignal }): Promise<PresentationListing>;
  /** The end of the stdio child's stderr ('' for HTTP). */
  stderr(): string;
  /** Why the transport dropped the connection itself (a message over the size cap), if it did. */
  describeFatal(): string | null;
  /** Closes the connection and, for stdio, ends the child. Idempotent; never throws. */
  close(): Promise<void>;
}

const DEFAULT_CLIENT_INFO: Implementation = { name: 'mcp-drift', version: '0.1.0' };
const DEFAULT_CLOSE_GRACE_MS = 2000;

/**
 * Connects to a server. With the era unknown, the SDK probes with `server/discover` and
 * falls back to `initialize`; with it known, the client connects in that era directly
 * (`legacy` mode, or a `{ pin }` on the 2026-07-28 revision). Read `era` from the session
 * and store it.
 *
 * A stored era can go stale: a connect in that era that the server refuses for its
 * protocol version is retried once with negotiation. A stdio server that exits on the
 * probe (some SDKs terminate on any request before `initialize`) is retried once in the
 * 2025 era.
 *
 * Connecting as a whole, probe and retry included, takes at most `timeoutMs` (plus a small
 * margin): a hung stdio server used to take two or three timeouts to report one. Over
 * stdio the discovery probe gets half of what is left, since a silent server on a pipe
 * may be a legacy server that ignores it.
 *
 * Throws DriftError (REMOTE_UNREACHABLE, REMOTE_TIMEOUT, REMOTE_PROTOCOL, CONFIG_INVALID for
 * an unset `${VAR}`, INVALID_INPUT for an unusable spec). Nothing is left running on failure.
 */
export async function openSession(spec: ConnectSpec, options: SessionOptions): Promise<McpSession> {
  // Legacy HTTP+SSE predates the 2026 revision: there is nothing to negotiate.
  const era = spec.transport === 'sse' ? '2025' : (spec.era ?? null);
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  try {
    return await connectInEra(spec, era, options, deadline);
  } catch (error) {
    const retryEra = eraForRetry(error, spec, era);
    // A retry with (almost) nothing left of the time would only fail for want of it.
    if (retryEra === undefined || deadline - performance.now() < MIN_RETRY_MS) throw error;
    return await connectInEra(spec, retryEra, options, deadline);
  }
}

/** The least time left worth a second connect attempt. */
const MIN_RETRY_MS = 250;

function eraForRetry(error: unknown, spec: ConnectSpec, era: Era | null): Era | null | undefined {
  if (!isDriftError(error)) return undefined;
  const cause = error.cause;
  const negotiationFailed =
    cause instanceof SdkError && cause.code === SdkErrorCode.EraNegotiationFailed;
  const versionRefused = cause instanceof UnsupportedProtocolVersionError;
  // On our (in-place) stdio transport a child that exits on `server/discover` surfaces as
  // a failed negotiation; the SDK's own sibling-process probe would call it legacy.
  if (era === null && spec.transport === 'stdio' && negotiationFailed) return '2025';
  // A stored era is stale: the server no longer offers 2026-07-28, or has dropped 2025.
  if (era === '2026' && (negotiationFailed || versionRefused)) return null;
  if (era === '2025' && versionRefused && spec.transport !== 'sse') return null;
  return undefined;
}

function negotiationFor(era: Era | null, probeTimeoutMs: number): VersionNegotiationOptions {
  if (era === '2025') return { mode: 'legacy' };
  const probe = { timeoutMs: probeTimeoutMs };
  return era === '2026'
    ? { mode: { pin: MODERN_PROTOCOL_VERSION }, probe }
    : { mode: 'auto', probe };
}

async function connectInEra(
  spec: ConnectSpec,
  era: Era | null,
  options: SessionOptions,
  deadline: number,
): Promise<McpSession> {
  /** What reasons name: the configured timeout, whatever part of it this attempt had. */
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const budgetMs = Math.max(1, Math.round(deadline - performance.now()));
  const probeMs = spec.transport === 'stdio' ? Math.max(1, Math.round(budgetMs / 2)) : budgetMs;
  const caps = { ...DEFAULT_LISTING_CAPS, ...options.caps };
  const onToolsListChanged = options.onToolsListChanged;
  const created = createTransport(spec, {
    environment: options.env,
    // One page can be at most the whole listing, plus the JSON-RPC envelope.
    maxMessageBytes: caps.maxBytes + 64 * 1024,
    maxTools: caps.maxTools,
    closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
    onToolsListChanged,
    spawn: options.spawn,
    oauthTokens: options.oauthTokens,
  });
  const login = created.oauth instanceof LoginOAuth ? created.oauth : undefined;
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    versionNegotiation: negotiationFor(era, probeMs),
  });
  // The transports hand single notifications over themselves; a batch still comes this way.
  if (onToolsListChanged) {
    client.setNotificationHandler('notifications/tools/list_changed', () => onToolsListChanged());
  }
  const onOther = options.onOtherListChanged;
  if (onOther) {
    for (const method of [
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ] as const) {
      client.setNotificationHandler(method, () => onOther(method));
    }
  }
  try {
    await login?.prepare();
    await connectWithin(client, created, budgetMs, options.signal);
  } catch (error) {
    if (login?.loginNeeded || (isDriftError(error) && error.code === 'NEEDS_LOGIN')) {
      await login?.settled();
      await shutDown(client, created, timeoutMs);
      throw login?.needsLoginError() ?? error;
    }
    // A child that is exiting gets a moment to do so and flush its stderr: its exit status
    // and last words explain the failure better than "closed its input". Described before
    // shutting down, so the exit status is what the server did on its own.
    await created.stdio?.settleExit(EXIT_SETTLE_MS);
    const looksLikeLegacySse =
      created.answersAsLegacySse !== undefined &&
      [400, 404, 405].includes(httpStatusOf(error) ?? 0) &&
      (await created.answersAsLegacySse());
    const failure = toDriftError(error, {
      step: 'connecting to',
      target: created.target,
      timeoutMs,
      stdio: created.stdio,
      http: created.http,
      looksLikeLegacySse,
    });
    await shutDown(client, created, timeoutMs);
    throw failure;
  }
  // Installed only now: a failed attempt (and its retry) must not look like a dropped session.
  client.onerror = (error) => options.onError?.(error);
  let closeReported = false;
  client.onclose = () => {
    if (closeReported) return;
    closeReported = true;
    options.onClose?.();
  };

  let closing: Promise<void> | undefined;
  return {
    client,
    era: client.getProtocolEra() === 'modern' ? '2026' : '2025',
    protocolVersion: client.getNegotiatedProtocolVersion() ?? '',
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
    instructions: client.getInstructions() ?? null,
    pid: created.stdio?.pid ?? null,
    target: created.target,
    listTools: (listOptions) =>
      listAllTools(client, {
        caps,
        timeoutMs,
        signal: listOptions?.signal,
        failure: { target: created.target, stdio: created.stdio, http: created.http },
      }),
    listPresentation: (listOptions) =>
      listPresentation(
        client,
        client.getServerCapabilities() ?? null,
        client.getInstructions() ?? null,
        {
          caps,
          timeoutMs,
          signal: listOptions?.signal,
          failure: { target: created.target, stdio: created.stdio, http: created.http },
        },
      ),
    stderr: () => created.stdio?.stderrText() ?? '',
    describeFatal: () => created.stdio?.describeFatal() ?? created.http?.fatal ?? null,
    close: () => (closing ??= shutDown(client, created, timeoutMs)),
  };
}

/** How long a stdio child whose pipes closed gets to exit before a failure is described. */
const EXIT_SETTLE_MS = 2_000;

/**
 * `client.connect` bounded as a whole by `budgetMs`: its requests have their own timeouts,
 * but the SSE transport waits for its `endpoint` event with none, and a probe plus a
 * handshake would otherwise take two request timeouts.
 */
async function connectWithin(
  client: Client,
  created: CreatedTransport,
  budgetMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  // The margin lets a request's own timeout, which says more, usually win the race.
  const deadlineMs = budgetMs + Math.min(budgetMs / 10, 1000);
  const connecting = client.connect(created.transport, { timeout: budgetMs, signal });
  connecting.catch(() => {}); // the race below may stop listening to it
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new SdkError(SdkErrorCode.RequestTimeout, 'connect timed out', { timeout: deadlineMs }),
      );
    }, deadlineMs);
    onAbort = () => reject(abortError());
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([connecting, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** Ends everything an attempt started; never throws, always waits for a stdio child. */
async function shutDown(
  client: Client,
  created: CreatedTransport,
  timeoutMs: number,
): Promise<void> {
  const http = created.streamableHttp;
  if (http?.sessionId !== undefined) {
    // A 2025-era Streamable HTTP session holds server state until it is deleted.
    await settleWithin(http.terminateSession(), Math.min(timeoutMs, 2000));
  }
  await settleWithin(client.close(), Math.min(timeoutMs, 2000));
  await created.transport.close().catch(() => {});
  await created.stdio?.close();
}

/** The status of the HTTP error along the `cause` chain (the probe wraps what it met). */
function httpStatusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 6; depth += 1) {
    if (current instanceof SdkHttpError) return current.status;
    current = current.cause;
  }
  return undefined;
}

function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

function abortError(): Error {
  const error = new Error('the connection attempt was aborted');
  error.name = 'AbortError';
  return error;
}
