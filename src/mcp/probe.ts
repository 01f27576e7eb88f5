import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import { DriftError, isDriftError, type DriftErrorCode } from '../errors.js';
import type { RawItem, RawTool } from '../listings/canonical.js';
import type { ConnectSpec, Era } from './connect-spec.js';
import { openSession, type McpSession, type SessionOptions } from './session.js';

/** What a fresh connection saw: the complete listing and how the server identified itself. */
export interface ProbeSuccess {
  ok: true;
  tools: RawTool[];
  pages: number;
  bytes: number;
  /** Connect plus listing; closing is not counted. */
  durationMs: number;
  era: Era;
  protocolVersion: string;
  serverInfo: Implementation | null;
  capabilities: ServerCapabilities | null;
  instructions: string | null;
  /** The other surfaces (docs/design.md §2); null when the server does not advertise one. */
  prompts: RawItem[] | null;
  resources: RawItem[] | null;
  resourceTemplates: RawItem[] | null;
  /** 2026-07-28 cache hints; null on 2025-era servers. */
  ttlMs: number | null;
  cacheScope: string | null;
  /** The same server listed as each other client identity asked for (`--also-as`). */
  alsoAs?: IdentityProbe[];
}

/** One `--also-as` identity's own probe; a failed one is kept, never read as a listing. */
export interface IdentityProbe {
  identity: string;
  result: ProbeResult;
}

/**
 * A failed attempt. There is deliberately no `tools` here: a failure must never be mistaken
 * for an empty listing. What was learned before the failure (era, server identity) is kept.
 */
export interface ProbeFailure {
  ok: false;
  code: DriftErrorCode;
  /** Says what failed and where, e.g. which cap and its figure, or the child's stderr. */
  reason: string;
  durationMs: number;
  era: Era | null;
  protocolVersion: string | null;
  serverInfo: Implementation | null;
  capabilities: ServerCapabilities | null;
}

export type ProbeResult = ProbeSuccess | ProbeFailure;

export type ProbeOptions = Omit<SessionOptions, 'onError' | 'onClose'>;

/**
 * Connects, lists every page, closes: what a newly connecting host sees. Never throws for
 * anything a server (or the way to it) does; the connection and any stdio child are always
 * closed before this returns.
 */
export async function probe(spec: ConnectSpec, options: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let session: McpSession | undefined;
  try {
    session = await openSession(spec, options);
    const listing = await session.listPresentation({ signal: options.signal });
    return {
      ok: true,
      ...listing,
      durationMs: elapsed(),
      era: session.era,
      protocolVersion: session.protocolVersion,
      serverInfo: session.serverInfo,
      capabilities: session.capabilities,
    };
  } catch (error) {
    const failure = isDriftError(error)
      ? error
      : new DriftError(
          'INTERNAL',
          `probing server "${spec.name}" failed unexpectedly: ${String(error)}`,
          {
            cause: error,
          },
        );
    return {
      ok: false,
      code: failure.code,
      reason: failure.message,
      durationMs: elapsed(),
      era: session?.era ?? null,
      protocolVersion: session?.protocolVersion ?? null,
      serverInfo: session?.serverInfo ?? null,
      capabilities: session?.capabilities ?? null,
    };
  } finally {
    await session?.close();
  }
}

/** `NAME/VERSION` (or `NAME`) as the clientInfo a client sends in initialize. */
export function clientInfoOf(identity: string): Implementation {
  const slash = identity.indexOf('/');
  return slash === -1
    ? { name: identity, version: '1.0.0' }
    : { name: identity.slice(0, slash), version: identity.slice(slash + 1) };
}

/**
 * probe(), then the same server once more as each other client identity, one after the
 * other (docs/design.md §4): a server that tells clients apart is only seen by asking as
 * them. Nothing more is asked when the first probe fails.
 */
export async function probeAsEach(
  spec: ConnectSpec,
  options: ProbeOptions,
  identities: readonly string[],
): Promise<ProbeResult> {
  const main = await probe(spec, options);
  if (!main.ok || identities.length === 0) return main;
  const alsoAs: IdentityProbe[] = [];
  for (const identity of identities) {
    if (options.signal?.aborted) break;
    const result = await probe(
      { ...spec, era: main.era },
      { ...options, clientInfo: clientInfoOf(identity) },
    );
    alsoAs.push({ identity, result });
  }
  return { ...main, alsoAs };
}
