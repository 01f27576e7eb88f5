import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
} from '@modelcontextprotocol/client';
import { DriftError, isDriftError, type DriftErrorCode } from '../errors.js';
import type { HttpGuard } from './http-guard.js';
import type { StdioTransport } from './stdio-transport.js';

/** What was going on when something failed, so the reason can say it. */
export interface FailureContext {
  /** "connecting", "listing tools (page 3)", … */
  step: string;
  /** Where: the URL, or the command line for stdio. */
  target: string;
  timeoutMs: number;
  stdio?: StdioTransport;
  /** http and sse: a response that broke the size cap explains what follows. */
  http?: HttpGuard;
  /** http: the URL answers a GET as an SSE stream, as a legacy HTTP+SSE endpoint does. */
  looksLikeLegacySse?: boolean;
}

/** What a reason quotes of the text a server answered an HTTP error with. */
const HTTP_TEXT_IN_REASON = 300;

const STDERR_IN_REASON = 1000;

/** Network failures the operator can act on, by the code Node or undici gives them. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection dropped',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/**
 * Turns whatever the SDK, undici or the child process threw into a DriftError whose message
 * tells an operator what happened and where. Failures caused by the server (or the path to
 * it) get REMOTE_* codes; anything else is INTERNAL, since it is probably our bug.
 */
export function toDriftError(error: unknown, context: FailureContext): DriftError {
  if (isDriftError(error)) return error;
  const classified = classify(error, context);
  // A server that wrote garbage instead of answering is broken, not slow.
  const code =
    classified.code === 'REMOTE_TIMEOUT' && context.stdio?.describeStrayOutput()
      ? 'REMOTE_PROTOCOL'
      : classified.code;
  const detail = classified.detail;
  const evidence = stdioEvidence(context.stdio, code);
  const message = `${context.step} ${context.target}: ${detail}${evidence}`;
  return new DriftError(code, message, { cause: error });
}

function classify(
  error: unknown,
  context: FailureContext,
): { code: DriftErrorCode; detail: string } {
  // The transport's own reason for dropping the connection beats "connection closed".
  const fatal = context.stdio?.describeFatal() ?? context.http?.fatal;
  if (fatal) return { code: 'REMOTE_PROTOCOL', detail: fatal };
  const network = networkFailure(error);
  if (network) return { code: 'REMOTE_UNREACHABLE', detail: network };

  if (error instanceof SdkHttpError) {
    const status = `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''}`;
    const said = serverText(error);
    // A 403 is as often a host or origin check ("Access is only allowed at localhost:…")
    // as a credential: the server's own words say which, so they are kept.
    if (error.status === 403) {
      return { code: 'REMOTE_UNREACHABLE', detail: `the server refused access (${status})${said}` };
    }
    if (error.status === 401) {
      return {
        code: 'REMOTE_UNREACHABLE',
        detail: `the server refused access (${status})${said}; check the configured headers`,
      };
    }
    const sse =
      context.looksLikeLegacySse && [400, 404, 405].includes(error.status)
        ? '; the URL answers as a legacy HTTP+SSE endpoint: register it with --transport sse'
        : '';
    return { code: 'REMOTE_UNREACHABLE', detail: `the server answered ${status}${said}${sse}` };
  }
  if (error instanceof SdkError) return classifySdkError(error, context);
  if (error instanceof ProtocolError) {
    return {
      code: 'REMOTE_PROTOCOL',
      detail: `the server answered with JSON-RPC error ${error.code}: ${error.message}`,
    };
  }
  if (error instanceof SseError) {
    const status = error.code;
    return {
      code: status !== undefined && status >= 400 ? 'REMOTE_UNREACHABLE' : 'REMOTE_PROTOCOL',
      detail: `the SSE stream failed (${error.message})`,
    };
  }
  const systemCode = errorCode(error);
  if (systemCode === 'ENOENT' || systemCode === 'EACCES') {
    return {
      code: 'REMOTE_UNREACHABLE',
      detail:
        systemCode === 'ENOENT'
          ? 'the command (or its working directory) was not found'
          : 'the command is not executable',
    };
  }
  // Requests on a connection that is already gone fail with a plain Error('Not connected').
  const exit = context.stdio?.describeExit();
  // A child that exits at once closes its stdin before the exit event is seen.
  if (systemCode === 'EPIPE') {
    return {
      code: 'REMOTE_UNREACHABLE',
      detail: exit
        ? `the server process ${exit} before answering`
        : 'the server process closed its input before answering (it exited or crashed)',
    };
  }
  if (exit) {
    return { code: 'REMOTE_UNREACHABLE', detail: `the server process ${exit} before answering` };
  }
  if (error instanceof Error && error.message === 'Not connected') {
    return { code: 'REMOTE_UNREACHABLE', detail: 'the connection is closed' };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { code: 'REMOTE_TIMEOUT', detail: 'aborted' };
  }
  return { code: 'INTERNAL', detail: `unexpected error: ${describe(error)}` };
}

function classifySdkError(
  error: SdkError,
  context: FailureContext,
): { code: DriftErrorCode; detail: string } {
  switch (error.code) {
    case SdkErrorCode.RequestTimeout:
      // The configured timeout: a connect spends it over its probe, handshake and retry,
      // and each of those requests had only a part of it.
      return { code: 'REMOTE_TIMEOUT', detail: `no answer within ${context.timeoutMs} ms` };
    case SdkErrorCode.ConnectionClosed:
    case SdkErrorCode.NotConnected:
    case SdkErrorCode.SendFailed: {
      const exit = context.stdio?.describeExit();
      return {
        code: 'REMOTE_UNREACHABLE',
        detail: exit
          ? `the server process ${exit} before answering`
          : 'the server closed the connection',
      };
    }
    case SdkErrorCode.ClientHttpUnexpectedContent:
      return {
        code: 'REMOTE_PROTOCOL',
        detail: `the server did not answer as an MCP endpoint (${error.message}); check the URL`,
      };
    case SdkErrorCode.EraNegotiationFailed: {
      // The probe wraps what really went wrong (an HTML page, a refused connection).
      const cause = error.cause === undefined ? undefined : classify(error.cause, context);
      if (cause && cause.code !== 'INTERNAL') return cause;
      return { code: 'REMOTE_PROTOCOL', detail: `protocol negotiation failed: ${error.message}` };
    }
    default:
      return { code: 'REMOTE_PROTOCOL', detail: error.message };
  }
}

/**
 * What a stdio child left behind explains most failures: the stray stdout lines turn a
 * timeout into a protocol error, the stderr tail usually names the real problem.
 */
function stdioEvidence(stdio: StdioTransport | undefined, code: DriftErrorCode): string {
  if (!stdio) return '';
  const parts: string[] = [];
  const stray = stdio.describeStrayOutput();
  if (stray) parts.push(`it wrote non-JSON-RPC output to stdout: ${stray}`);
  const exit = stdio.describeExit();
  if (exit && code !== 'REMOTE_UNREACHABLE' && !stdio.describeFatal()) {
    parts.push(`the process ${exit}`);
  }
  // The last lines are the ones that explain; the whole tail is on McpSession.stderr().
  // One line, so that a CLI error stays one line and a log line stays greppable.
  const stderr = stdio
    .stderrText()
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' | ');
  if (stderr) {
    parts.push(
      `stderr: ${stderr.length > STDERR_IN_REASON ? `…${stderr.slice(-STDERR_IN_REASON)}` : stderr}`,
    );
  }
  return parts.length > 0 ? `; ${parts.join('; ')}` : '';
}

/**
 * The text the server sent with an HTTP error, as `: "…"` (one line, tags and control
 * characters dropped, cut short), or '' when there is none. Secrets it quotes are masked
 * where reasons are stored and logged.
 */
function serverText(error: SdkHttpError): string {
  const data: unknown = error.data;
  const raw =
    typeof data === 'object' && data !== null && 'text' in data && typeof data.text === 'string'
      ? data.text
      : '';
  const text = (raw.trimStart().startsWith('<') ? raw.replace(/<[^>]*>/g, ' ') : raw)
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return '';
  const cut = text.length > HTTP_TEXT_IN_REASON ? `${text.slice(0, HTTP_TEXT_IN_REASON)}…` : text;
  return `: ${JSON.stringify(cut)}`;
}

/** The first recognised network error code along the `cause` chain (or in an SSE message). */
function networkFailure(error: unknown): string | null {
  for (let current = error, depth = 0; current && depth < 6; depth += 1) {
    const code = errorCode(current);
    if (code && NETWORK_CODES[code]) return `${NETWORK_CODES[code]} (${code})`;
    // fetch refuses a list of ports (1, 9, 25, …) before connecting at all.
    if (current instanceof Error && current.message === 'bad port') {
      return 'fetch refuses to connect to this port (a blocked port such as 1, 9 or 25); use another port';
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  // SseError flattens its cause into the message.
  const message = error instanceof Error ? error.message : '';
  for (const [code, text] of Object.entries(NETWORK_CODES)) {
    if (message.includes(code)) return `${text} (${code})`;
  }
  return null;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
