import type { RawTool } from '../../src/listings/canonical.js';
import type { ProbeFailure, ProbeSuccess } from '../../src/mcp/index.js';

/*
 * What a successful probe returns, built here instead of by a server: the input of
 * recordObservation in tests and benches that are about recording, not about listing.
 */

export function listed(tools: RawTool[], overrides: Partial<ProbeSuccess> = {}): ProbeSuccess {
  return {
    ok: true,
    tools,
    pages: 1,
    bytes: JSON.stringify(tools).length,
    durationMs: 12,
    era: '2025',
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'memory-server', version: '0.6.3' },
    capabilities: { tools: { listChanged: true } },
    instructions: null,
    prompts: null,
    resources: null,
    resourceTemplates: null,
    ttlMs: null,
    cacheScope: null,
    ...overrides,
  };
}

/** What a probe of a server that cannot be reached returns: an error observation. */
export function unreachable(reason: string): ProbeFailure {
  return {
    ok: false,
    code: 'REMOTE_UNREACHABLE',
    reason,
    durationMs: 3,
    era: null,
    protocolVersion: null,
    serverInfo: null,
    capabilities: null,
  };
}

/** The listing with `hints` merged into the annotations of the tool called `name`. */
export function withHints(
  tools: RawTool[],
  name: string,
  hints: Record<string, unknown>,
): RawTool[] {
  return tools.map((tool) =>
    tool.name === name
      ? { ...tool, annotations: { ...(tool['annotations'] as object), ...hints } }
      : tool,
  );
}

/** The listing with the tool called `name` re-declared read-only. */
export function relaxed(tools: RawTool[], name: string): RawTool[] {
  return withHints(tools, name, { readOnlyHint: true });
}

/** `n` tools that delete, each declared destructive: a listing to relax all at once. */
export function destructiveTools(n: number): RawTool[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `delete_record_${String(i).padStart(4, '0')}`,
    description: 'Deletes one record for good.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    annotations: { readOnlyHint: false, destructiveHint: true },
  }));
}

/** The listing with every tool re-declared read-only. */
export function allReadOnly(tools: RawTool[]): RawTool[] {
  return tools.map((tool) => ({ ...tool, annotations: { readOnlyHint: true } }));
}
