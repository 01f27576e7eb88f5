import { canonicalize, type RawTool } from '../listings/canonical.js';
import { baseSeverity, type FindingKind } from './catalogue.js';
import {
  checkText,
  toolContentDrafts,
  type ContentRecord,
  type ContentScope,
} from './content-checks.js';
import { contradictionEvidence, sameEvidence } from './contradiction.js';
import { gradeDeclaredFlip, gradeFirstDeclaration } from './first-declaration.js';
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
import { descriptionChangedSubstantively, schemaChangedSubstantively } from './substantive.js';
import { isObject } from '../is-object.js';

/** A finding before the interpretation record and escalations are attached. */
export interface Draft {
  kind: FindingKind;
  base: Severity;
  field?: string;
  before?: unknown;
  after?: unknown;
  wording: Wording;
  /** Why the base differs from the table's (a first declaration, graded). */
  basis?: string;
  /** A first declaration of a relaxing hint within a vendor's adoption of annotations. */
  adoptionDeclaration?: boolean;
  /** Content findings: what was found and where. */
  content?: ContentRecord;
}

const FIELD_KIND: ReadonlyMap<string, FindingKind> = new Map([
  ['description', 'description_changed'],
  ['title', 'title_changed'],
  ['inputSchema', 'input_schema_changed'],
  ['outputSchema', 'output_schema_changed'],
  ['_meta', 'meta_changed'],
  ['icons', 'icons_changed'],
]);

/** Builds a draft at the catalogue's severity, leaving `before`/`after` out when absent. */
function draft(
  kind: FindingKind,
  wording: Wording,
  field?: string,
  before?: unknown,
  after?: unknown,
): Draft {
  const result: Draft = { kind, base: baseSeverity(kind, field), wording };
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

/** What per-tool checks need to know about the rest of the diff. */
export interface ToolCheckOptions {
  /** null: content checks are off (benchmarks measure the diff without them). */
  content: ContentScope | null;
  /** True when a text already appeared anywhere in the previous listing. */
  seenBefore: (text: string) => boolean;
  /** The release declares hints on most of the server's tools at once (docs/design.md §4). */
  adoption: boolean;
}

/**
 * Per hint: a relaxation or tightening when the effective value a host reads moved (for
 * destructive/idempotent only while the tool is not read-only on either side), then
 * annotation_invalid for a new non-boolean value, else annotation_declared when only the
 * declaration changed. A relaxation that is the hint's first declaration (absent, or
 * invalid, before) is graded by the tool's own text, and so is a flip of a declared value
 * (first-declaration.ts).
 */
function hintDrafts(
  tool: string,
  before: Posture,
  after: Posture,
  tools: { before: RawTool; after: RawTool },
  adoption: boolean,
): Draft[] {
  const drafts: Draft[] = [];
  for (const hint of HINTS) {
    const b = before[hint];
    const a = after[hint];
    const compared = isMeaningful(before, hint) && isMeaningful(after, hint);
    const moved = compared && b.effective !== a.effective;
    if (moved) {
      const relaxed = a.effective === RELAXED_VALUE[hint];
      const kind = relaxed ? 'annotation_relaxed' : 'annotation_tightened';
      const wording = relaxed ? relaxedWording(tool, hint) : tightenedWording(tool, hint);
      const found = draft(kind, wording, hint, b.effective, a.effective);
      const firstDeclaration = typeof b.declared !== 'boolean' && typeof a.declared === 'boolean';
      if (relaxed && firstDeclaration) {
        const graded = gradeFirstDeclaration(hint, found.base, tools.after, adoption);
        found.base = graded.base;
        found.basis = graded.basis;
        found.adoptionDeclaration = adoption;
      } else if (relaxed && typeof b.declared === 'boolean') {
        const graded = gradeDeclaredFlip(hint, found.base, tools.before, tools.after);
        if (graded !== null) {
          found.base = graded.base;
          found.basis = graded.basis;
        }
      }
      drafts.push(found);
    }
    if (sameDeclared(b.declared, a.declared)) continue;
    if (isInvalid(a.declared)) {
      drafts.push(invalidDraft(tool, hint, a.declared.invalid, b.declared));
    } else if (!moved) {
      const wording = declaredWording(tool, hint, b.declared, a.declared, compared, a.effective);
      const [was, now] = [declaredValue(b.declared), declaredValue(a.declared)];
      drafts.push(draft('annotation_declared', wording, hint, was, now));
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
  const result = draft('annotation_invalid', wording, hint, declaredValue(before));
  // An invalid value may be null, which must still show as the `after` value.
  result.after = value;
  return result;
}

function fieldKind(field: string): FindingKind {
  if (field === 'annotations.title') return 'title_changed';
  return FIELD_KIND.get(field) ?? 'other_changed';
}

function fieldDrafts(tool: string, field: string, before: unknown, after: unknown): Draft[] {
  if (sameJson(before, after)) return [];
  const kind = fieldKind(field);
  return [draft(kind, fieldWording(tool, field, before, after), field, before, after)];
}

/**
 * Content findings of a server's `instructions` (initialize result, server/discover): the
 * same checks as a tool's text, at the path `instructions`. Null or unchanged: none.
 */
export function instructionsDrafts(
  before: string | null | undefined,
  after: string | null | undefined,
  options: ToolCheckOptions,
): Draft[] {
  if (options.content === null || typeof after !== 'string' || after === '' || after === before) {
    return [];
  }
  return checkText(
    'the server',
    { path: 'instructions', text: after, location: 'value' },
    options.content,
  ).map((found) => ({
    kind: found.kind,
    base: found.base,
    field: found.field,
    wording: { summary: found.summary, effect: found.effect },
    content: found.content,
  }));
}

/** Content findings on a tool's (or a surface item's) texts, as drafts of its change. */
export function contentDrafts(
  tool: string,
  before: RawTool | null,
  after: RawTool,
  options: ToolCheckOptions,
): Draft[] {
  if (options.content === null) return [];
  return toolContentDrafts(tool, before, after, {
    scope: options.content,
    seenBefore: options.seenBefore,
  }).map((found) => ({
    kind: found.kind,
    base: found.base,
    field: found.field,
    wording: { summary: found.summary, effect: found.effect },
    content: found.content,
  }));
}

export interface ToolComparison {
  drafts: Draft[];
  /** Null for a tool with nothing to compare against. */
  before: Posture | null;
  after: Posture;
  /** Why a relaxation on this tool is raised one level, or null. */
  escalation: string | null;
  postureChanged: boolean;
}

/**
 * Every difference between two versions of one tool (the same name, or a rename: `name` is
 * never compared). `tool` is the name findings are reported under.
 */
export function compareTool(
  tool: string,
  before: RawTool | null,
  after: RawTool,
  options: ToolCheckOptions,
): ToolComparison {
  if (before === null) return checkAddedTool(tool, after, options);
  const postureBefore = readPosture(before);
  const postureAfter = readPosture(after);
  const drafts = hintDrafts(tool, postureBefore, postureAfter, { before, after }, options.adoption);

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

  // Only a substantive change dresses a relaxation up (substantive.ts): not whitespace,
  // $schema, additionalProperties, bounds at MAX_SAFE_INTEGER or a reordered `required`.
  const changedFields = new Set(drafts.map((d) => d.field));
  const dressing = [
    changedFields.has('description') &&
    descriptionChangedSubstantively(before['description'], after['description'])
      ? 'description'
      : null,
    changedFields.has('inputSchema') &&
    schemaChangedSubstantively(before['inputSchema'], after['inputSchema'])
      ? 'input schema'
      : null,
  ].filter((part) => part !== null);
  const escalation =
    dressing.length === 0 ? null : `its ${dressing.join(' and ')} changed in the same change`;

  if (postureAfter.readOnlyHint.effective) {
    const evidence = contradictionEvidence(after);
    const known = postureBefore.readOnlyHint.effective ? contradictionEvidence(before) : null;
    // Reported when new in this change, not again on every later edit of the same tool.
    if (evidence !== null && !sameEvidence(known, evidence)) {
      drafts.push(
        draft('annotation_contradiction', contradictionWording(tool, evidence), 'readOnlyHint'),
      );
    }
  }
  drafts.push(...contentDrafts(tool, before, after, options));

  return {
    drafts,
    before: postureBefore,
    after: postureAfter,
    escalation,
    postureChanged: postureKey(postureBefore) !== postureKey(postureAfter),
  };
}

/**
 * A tool with nothing to compare against (added, or in a server's first listing): the same
 * checks as a changed tool, on everything it says. tool_added is the caller's.
 */
function checkAddedTool(tool: string, added: RawTool, options: ToolCheckOptions): ToolComparison {
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
        draft('annotation_contradiction', contradictionWording(tool, evidence), 'readOnlyHint'),
      );
    }
  }
  drafts.push(...contentDrafts(tool, null, added, options));
  return { drafts, before: null, after: posture, escalation: null, postureChanged: false };
}
