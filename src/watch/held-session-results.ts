import { SdkHttpError } from '@modelcontextprotocol/client';
import { DriftError, isDriftError } from '../errors.js';
import type { McpSession, PresentationListing, ProbeFailure, ProbeSuccess } from '../mcp/index.js';
import { toDriftError } from '../mcp/describe-failure.js';

/** A complete listing taken on a held session, in the shape a fresh probe reports. */
export function listingResult(
  session: McpSession,
  listing: PresentationListing,
  durationMs: number,
): ProbeSuccess {
  return {
    ok: true,
    ...listing,
    durationMs,
    era: session.era,
    protocolVersion: session.protocolVersion,
    serverInfo: session.serverInfo,
    capabilities: session.capabilities,
  };
}

/** A re-list that failed: a failure, never an empty listing. */
export function failedListing(
  session: McpSession,
  error: unknown,
  durationMs: number,
): ProbeFailure {
  const failure = isDriftError(error)
    ? error
    : new DriftError(
        'INTERNAL',
        `listing tools from ${session.target} failed unexpectedly: ${String(error)}`,
        { cause: error },
      );
  return {
    ok: false,
    code: failure.code,
    reason: failure.message,
    durationMs,
    era: session.era,
    protocolVersion: session.protocolVersion,
    serverInfo: session.serverInfo,
    capabilities: session.capabilities,
  };
}

/** Why a held session is considered lost, for onDown and the logs. */
export function describeLoss(
  error: unknown,
  session: McpSession,
  step: string,
  timeoutMs: number,
): string {
  // Streamable HTTP: the server no longer knows the Mcp-Session-Id (it restarted, or the
  // session expired). Only a new session helps.
  if (error instanceof SdkHttpError && error.status === 404) {
    return `${step} ${session.target}: the session expired (HTTP 404)`;
  }
  return toDriftError(error, { step, target: session.target, timeoutMs }).message;
}
