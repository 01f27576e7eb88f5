import type { RawTool } from '../listings/canonical.js';
import { HINTS, readPosture, type DeclaredHint, type HintName } from './hints.js';
import { hasEdits, wordDiff, type DiffPart } from './word-diff.js';

/*
 * One tool before and after a change, side by side, as a reviewer reads it: the four
 * hints declared and effective on each side with what moved, and word-level diffs of its
 * title, description and schemas. Pure; the console renders it.
 */

export interface HintSide {
  /** null: the tool does not exist on that side. */
  declared: DeclaredHint | null;
  effective: boolean | null;
}

export interface HintRow {
  hint: HintName;
  before: HintSide;
  after: HintSide;
  declaredChanged: boolean;
  effectiveChanged: boolean;
}

export interface TextComparison {
  /** null: absent on that side (no such key, or no such tool). */
  before: string | null;
  after: string | null;
  parts: DiffPart[];
  changed: boolean;
}

export interface ToolComparison {
  tool: string;
  /** The old name, when the tool was matched as a rename. */
  renamedFrom: string | null;
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  hints: HintRow[];
  title: TextComparison;
  description: TextComparison;
  inputSchema: TextComparison;
  outputSchema: TextComparison;
}

export function compareToolSides(
  tool: string,
  before: RawTool | undefined,
  after: RawTool | undefined,
  options: { renamedFrom?: string | null } = {},
): ToolComparison {
  const postureBefore = before ? readPosture(before) : null;
  const postureAfter = after ? readPosture(after) : null;
  const hints = HINTS.map((hint): HintRow => {
    const side = (posture: typeof postureBefore): HintSide =>
      posture
        ? { declared: posture[hint].declared, effective: posture[hint].effective }
        : { declared: null, effective: null };
    const b = side(postureBefore);
    const a = side(postureAfter);
    return {
      hint,
      before: b,
      after: a,
      declaredChanged: JSON.stringify(b.declared) !== JSON.stringify(a.declared),
      effectiveChanged: b.effective !== a.effective,
    };
  });
  const title = compareText(titleOf(before), titleOf(after));
  const description = compareText(textOf(before?.['description']), textOf(after?.['description']));
  const inputSchema = compareText(
    schemaText(before?.['inputSchema']),
    schemaText(after?.['inputSchema']),
  );
  const outputSchema = compareText(
    schemaText(before?.['outputSchema']),
    schemaText(after?.['outputSchema']),
  );
  const same =
    before !== undefined &&
    after !== undefined &&
    JSON.stringify(sortKeys(before)) === JSON.stringify(sortKeys({ ...after, name: before.name }));
  return {
    tool,
    renamedFrom: options.renamedFrom ?? null,
    status: !before ? 'added' : !after ? 'removed' : same ? 'unchanged' : 'changed',
    hints,
    title,
    description,
    inputSchema,
    outputSchema,
  };
}

function compareText(before: string | null, after: string | null): TextComparison {
  const parts = wordDiff(before ?? '', after ?? '');
  return {
    before,
    after,
    parts,
    changed: before !== after && (hasEdits(parts) || before === null || after === null),
  };
}

function textOf(value: unknown): string | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The top-level `title`, else `annotations.title` (docs/design.md §4: either is the title). */
function titleOf(tool: RawTool | undefined): string | null {
  if (!tool) return null;
  if (tool['title'] !== undefined) return textOf(tool['title']);
  const annotations = tool['annotations'];
  if (typeof annotations === 'object' && annotations !== null && 'title' in annotations) {
    return textOf((annotations as Record<string, unknown>)['title']);
  }
  return null;
}

/** A schema written out with its keys sorted, so that key order alone shows no change. */
function schemaText(value: unknown): string | null {
  if (value === undefined) return null;
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
