import { canonicalize, type RawTool } from '../listings/canonical.js';
import { contradictionEvidence, sameEvidence } from './contradiction.js';
import {
  contradictionWording,
  declaredWording,
  fieldWording,
  invalidWording,
  relaxedWording,
  tightenedWording,
  type Wording,
} from './explain.js';
import {
  HINT_DEFAULTS,
  HINTS,
  RELAXED_VALUE,
  annotationsOf,
  isInvalid,
  isMeaningful,
  postureKey,
  readPosture,
  type DeclaredHint,
  type HintName,
  type Posture,
} from './hints.js';
import type { Severity } from './severity.js';
import type { FindingKind } from './types.js';

/** A finding before the interpretation record and escalations are attached. */
export interface Draft {
  kind: FindingKind;
  base: Severity;
  field?: string;
  before?: unknown;
  after?: unknown;
  wording: Wording;
}

const RELAXED_SEVERITY: Readonly<Record<HintName, Severity>> = {
  readOnlyHint: 'critical',
  destructiveHint: 'high',
  idempotentHint: 'high',
  openWorldHint: 'medium',
};

const FIELD_KIND: ReadonlyMap<string, { kind: FindingKind; base: Severity }> = new Map([
  ['description', { kind: 'description_changed', base: 'low' }],
  ['title', { kind: 'title_changed', base: 'info' }],
  ['inputSchema', { kind: 'input_schema_changed', base: 'low' }],
  ['outputSchema', { kind: 'output_schema_changed', base: 'low' }],
  ['_meta', { kind: 'meta_changed', base: 'info' }],
  ['icons', { kind: 'icons_changed', base: 'info' }],
]);

/** Builds a draft, leaving `before`/`after` out when that side is absent. */
function draft(
  kind: FindingKind,
  base: Severity,
  wording: Wording,
  field?: string,
  before?: unknown,
  after?: unknown,
): Draft {
  const result: Draft = { kind, base, wording };
  if (field !== undefined) result.field = field;
  if (before !== undefined) result.before = before;
  if (after !== undefined) result.after = after;
  return result;
}

/** Equality of two JSON values as canonical forms; undefined stands for an absent key. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === b) return true;
  return canonicalize(a) === canonicalize(b);
}

function sameDeclared(a: DeclaredHint, b: DeclaredHint): boolean {
  if (isInvalid(a) && isInvalid(b)) return sameJson(a.invalid, b.invalid);
  return a === b;
}

function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function sortedKeyUnion(a: object, b: object, skip: ReadonlySet<string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of skip) keys.delete(key);
  return [...keys].sort();
}

const TOOL_KEYS_HANDLED_ELSEWHERE = new Set(['name', 'annotations']);
const ANNOTATION_KEYS_HANDLED_ELSEWHERE = new Set<string>(HINTS);

/**
 * Per hint: a relaxation or tightening when the effective value a host reads moved (for
 * destructive/idempotent only while the tool is not read-only on either side), then
 * annotation_invalid for a new non-boolean value, else annotation_declared when only the
 * declaration changed.
 */
function hintDrafts(tool: string, before: Posture, after: Posture): Draft[] {
  const drafts: Draft[] = [];
  for (const hint of HINTS) {
    const b = before[hint];
    const a = after[hint];
    const compared = isMeaningful(before, hint) && isMeaningful(after, hint);
    const moved = compared && b.effective !== a.effective;
    if (moved) {
      const relaxed = a.effective === RELAXED_VALUE[hint];
      const kind = relaxed ? 'annotation_relaxed' : 'annotation_tightened';
      const base = relaxed ? RELAXED_SEVERITY[hint] : 'low';
      const wording = relaxed ? relaxedWording(tool, hint) : tightenedWording(tool, hint);
      drafts.push(draft(kind, base, wording, hint, b.effective, a.effective));
    }
    if (sameDeclared(b.declared, a.declared)) continue;
    if (isInvalid(a.declared)) {
      drafts.push(invalidDraft(tool, hint, a.declared.invalid, b.declared));
    } else if (!moved) {
      const wording = declaredWording(tool, hint, b.declared, a.declared, compared, a.effective);
      const [was, now] = [declaredValue(b.declared), declaredValue(a.declared)];
      drafts.push(draft('annotation_declared', 'info', wording, hint, was, now));
    }
  }
  return drafts;
}

/** A declared value for `before`/`after`: absent is left out, an invalid value is itself. */
function declaredValue(declared: DeclaredHint | undefined): unknown {
  if (declared === undefined || declared === 'absent') return undefined;
  return isInvalid(declared) ? declared.invalid : declared;
}

function invalidDraft(tool: string, hint: HintName, value: unknown, before?: DeclaredHint): Draft {
  const wording = invalidWording(tool, hint, value, HINT_DEFAULTS[hint]);
  const result = draft('annotation_invalid', 'medium', wording, hint, declaredValue(before));
  // An invalid value may be null, which must still show as the `after` value.
  result.after = value;
  return result;
}

function fieldKind(field: string): { kind: FindingKind; base: Severity } {
  if (field === 'annotations.title') return { kind: 'title_changed', base: 'info' };
  return FIELD_KIND.get(field) ?? { kind: 'other_changed', base: 'info' };
}

function fieldDrafts(tool: string, field: string, before: unknown, after: unknown): Draft[] {
  if (sameJson(before, after)) return [];
  const { kind, base } = fieldKind(field);
  return [draft(kind, base, fieldWording(tool, field, before, after), field, before, after)];
}

export interface ToolComparison {
  drafts: Draft[];
  before: Posture;
  after: Posture;
  /** Why a relaxation on this tool is raised one level, or null. */
  escalation: string | null;
  postureChanged: boolean;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every difference between two versions of one tool (the same name, or a rename: `name` is
 * never compared). `tool` is the name findings are reported under.
 */
export function compareTool(tool: string, before: RawTool, after: RawTool): ToolComparison {
  const postureBefore = readPosture(before);
  const postureAfter = readPosture(after);
  const drafts = hintDrafts(tool, postureBefore, postureAfter);

  for (const key of sortedKeyUnion(before, after, TOOL_KEYS_HANDLED_ELSEWHERE)) {
    drafts.push(...fieldDrafts(tool, key, ownValue(before, key), ownValue(after, key)));
  }

  // The annotations object: hints were read above, the rest of its keys are compared here.
  // A non-object `annotations` (null, an array...) reads as no hints and is reported as is.
  const rawBefore = ownValue(before, 'annotations');
  const rawAfter = ownValue(after, 'annotations');
  const notObject = (value: unknown) => value !== undefined && !isObject(value);
  if (notObject(rawBefore) || notObject(rawAfter)) {
    drafts.push(...fieldDrafts(tool, 'annotations', rawBefore, rawAfter));
  }
  const annotationsBefore = annotationsOf(before);
  const annotationsAfter = annotationsOf(after);
  for (const key of sortedKeyUnion(
    annotationsBefore,
    annotationsAfter,
    ANNOTATION_KEYS_HANDLED_ELSEWHERE,
  )) {
    drafts.push(
      ...fieldDrafts(
        tool,
        `annotations.${key}`,
        ownValue(annotationsBefore, key),
        ownValue(annotationsAfter, key),
      ),
    );
  }

  const changedFields = new Set(drafts.map((d) => d.field));
  const dressing = [
    changedFields.has('description') ? 'description' : null,
    changedFields.has('inputSchema') ? 'input schema' : null,
  ].filter((part) => part !== null);
  const escalation =
    dressing.length === 0 ? null : `its ${dressing.join(' and ')} changed in the same change`;

  if (postureAfter.readOnlyHint.effective) {
    const evidence = contradictionEvidence(after);
    const known = postureBefore.readOnlyHint.effective ? contradictionEvidence(before) : null;
    // Reported when new in this change, not again on every later edit of the same tool.
    if (evidence !== null && !sameEvidence(known, evidence)) {
      drafts.push(
        draft(
          'annotation_contradiction',
          'medium',
          contradictionWording(tool, evidence),
          'readOnlyHint',
        ),
      );
    }
  }

  return {
    drafts,
    before: postureBefore,
    after: postureAfter,
    escalation,
    postureChanged: postureKey(postureBefore) !== postureKey(postureAfter),
  };
}

/** The findings an added tool gets besides tool_added: invalid hints, a contradiction. */
export function addedToolDrafts(tool: string, added: RawTool): { drafts: Draft[]; after: Posture } {
  const posture = readPosture(added);
  const drafts: Draft[] = [];
  for (const hint of HINTS) {
    const declared = posture[hint].declared;
    if (isInvalid(declared)) drafts.push(invalidDraft(tool, hint, declared.invalid));
  }
  if (posture.readOnlyHint.effective) {
    const evidence = contradictionEvidence(added);
    if (evidence !== null) {
      drafts.push(
        draft(
          'annotation_contradiction',
          'medium',
          contradictionWording(tool, evidence),
          'readOnlyHint',
        ),
      );
    }
  }
  return { drafts, after: posture };
}
