import { canonicalize, type RawTool } from '../listings/canonical.js';
import { nearlySameTool } from './substantive.js';

export interface Rename {
  before: RawTool;
  after: RawTool;
  /** Identical inputSchema and description; false for a near-identical pair. */
  exact: boolean;
}

/** Near-identical pairs are compared one by one: past this many pairs only exact ones are. */
const MAX_FUZZY_PAIRS = 10_000;

/**
 * What a rename keeps: inputSchema and description, canonical. An absent key is '' (no
 * canonical JSON is empty); the separator is a raw newline, which canonical JSON never has.
 */
export function renameKey(tool: RawTool): string {
  const part = (key: string) => (Object.hasOwn(tool, key) ? canonicalize(tool[key]) : '');
  return `${part('inputSchema')}\n${part('description')}`;
}

/**
 * Pairs removed tools with added ones that have an identical inputSchema and description
 * (docs/design.md §4, tool_renamed), so that annotations are compared across the rename. Linear:
 * removed tools are indexed by key. When several tools share a key, they pair in the
 * order given (callers pass both lists sorted by name), which keeps the result stable.
 * Then the rest pair when near-identical (substantive.ts: a trailing space, one optional
 * property more or less, a sentence trimmed), in the same order, the first match taken.
 */
export function matchRenames(
  removed: readonly RawTool[],
  added: readonly RawTool[],
): { renames: Rename[]; removed: RawTool[]; added: RawTool[] } {
  if (removed.length === 0 || added.length === 0) {
    return { renames: [], removed: [...removed], added: [...added] };
  }
  const waiting = new Map<string, RawTool[]>();
  for (const tool of removed) {
    const key = renameKey(tool);
    const queue = waiting.get(key);
    if (queue === undefined) waiting.set(key, [tool]);
    else queue.push(tool);
  }
  const renames: Rename[] = [];
  const paired = new Set<RawTool>();
  const unmatchedAdded: RawTool[] = [];
  for (const tool of added) {
    const queue = waiting.get(renameKey(tool));
    const before = queue?.shift();
    if (before === undefined) {
      unmatchedAdded.push(tool);
    } else {
      renames.push({ before, after: tool, exact: true });
      paired.add(before);
    }
  }
  const left = removed.filter((tool) => !paired.has(tool));
  const unmatched: RawTool[] = [];
  if (left.length * unmatchedAdded.length <= MAX_FUZZY_PAIRS) {
    for (const tool of unmatchedAdded) {
      const before = left.find((old) => !paired.has(old) && nearlySameTool(old, tool));
      if (before === undefined) {
        unmatched.push(tool);
      } else {
        renames.push({ before, after: tool, exact: false });
        paired.add(before);
      }
    }
  } else {
    unmatched.push(...unmatchedAdded);
  }
  return {
    renames,
    removed: removed.filter((tool) => !paired.has(tool)),
    added: unmatched,
  };
}
