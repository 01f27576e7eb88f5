import { fieldWording, relaxedWording, tightenedWording } from './explain.js';
import { HINTS, type HintName } from './hints.js';
import type { Severity } from './severity.js';

/**
 * Every finding kind, declared once (design §4): its base severity, where it sorts (the
 * order of this table), the headline that names it in a subject or a change heading, and
 * how its before/after values are shown to a person. compare-tool, diff-listings,
 * format-text and the alert view read it; a new kind is one entry here plus its checks.
 */
export interface KindEntry {
  /** A severity, or one per `field` (annotation_relaxed: per hint). */
  base: Severity | Readonly<Record<string, Severity>>;
  /**
   * How before/after show: `none` (the explanation says it all), `values` (content to
   * review: descriptions, schemas, titles), `text` (the offending server text, quoted with
   * invisible characters made visible, and any hidden text decoded).
   */
  values: 'none' | 'values' | 'text';
  headline: (finding: HeadlineInput) => string;
}

/** What a headline may use; server text in it (tool, field) is already cleaned by the caller. */
export interface HeadlineInput {
  tool: string;
  field: string | null;
  before: unknown;
  after: unknown;
  renamedFrom: string | null;
  /** For content findings: what the record says was found. */
  content: ContentSummary | null;
}

/** The parts of a content finding's record a headline uses. */
export interface ContentSummary {
  /** Decoded or off-screen text, made visible. */
  hidden: string | null;
  families: string[];
  /** The other tool a shadowing text directs. */
  target: string | null;
  location: 'value' | 'key';
}

function hintOf(field: string | null): HintName | null {
  return HINTS.find((hint) => hint === field) ?? null;
}

/** "description", "the property name inputSchema.properties.x". */
function where(input: HeadlineInput): string {
  const field = input.field ?? 'text';
  if (input.content?.location === 'key') return `property name ${field}`;
  return field;
}

const SHORT_QUOTE = 60;

function shortQuote(text: string): string {
  return JSON.stringify(text.length > SHORT_QUOTE ? `${text.slice(0, SHORT_QUOTE - 1)}…` : text);
}

function changedField(input: HeadlineInput): string {
  if (input.field === null) return `${input.tool} changed`;
  return fieldWording(input.tool, input.field, input.before ?? undefined, input.after ?? undefined)
    .summary;
}

export const FINDING_CATALOGUE = {
  annotation_relaxed: {
    base: {
      readOnlyHint: 'critical',
      destructiveHint: 'high',
      idempotentHint: 'high',
      openWorldHint: 'medium',
    },
    values: 'none',
    headline: (f) => {
      const hint = hintOf(f.field);
      return hint === null ? `${f.tool} relaxes a hint` : relaxedWording(f.tool, hint).summary;
    },
  },
  hidden_characters: {
    base: 'high',
    values: 'text',
    headline: (f) =>
      f.content?.hidden
        ? `${f.tool}'s ${where(f)} hides text in invisible characters: ${shortQuote(f.content.hidden)}`
        : `${f.tool}'s ${where(f)} holds invisible characters`,
  },
  instruction_injection: {
    base: 'high',
    values: 'text',
    headline: (f) =>
      `${f.tool}'s ${where(f)} addresses the model (${(f.content?.families ?? []).join(', ') || 'instructions'})`,
  },
  tool_shadowing: {
    base: 'high',
    values: 'text',
    headline: (f) =>
      `${f.tool}'s ${where(f)} directs how ${f.content?.target ?? 'another tool'} is used`,
  },
  annotation_tightened: {
    base: 'low',
    values: 'none',
    headline: (f) => {
      const hint = hintOf(f.field);
      return hint === null ? `${f.tool} tightens a hint` : tightenedWording(f.tool, hint).summary;
    },
  },
  annotation_declared: {
    base: 'info',
    values: 'none',
    headline: (f) => `${f.tool} re-declares ${f.field ?? 'a hint'} without changing its effect`,
  },
  annotation_invalid: {
    base: 'medium',
    values: 'none',
    headline: (f) => `${f.tool} declares an invalid ${f.field ?? 'hint'}`,
  },
  annotation_contradiction: {
    base: 'medium',
    values: 'none',
    headline: (f) => `${f.tool} claims read-only, yet its name or description says otherwise`,
  },
  tool_added: { base: 'low', values: 'none', headline: (f) => `new tool ${f.tool}` },
  tool_removed: { base: 'low', values: 'none', headline: (f) => `${f.tool} was removed` },
  tool_renamed: {
    base: 'low',
    values: 'none',
    headline: (f) =>
      `${f.renamedFrom ?? (typeof f.before === 'string' ? f.before : '')} was renamed to ${f.tool}`,
  },
  description_changed: { base: 'low', values: 'values', headline: changedField },
  title_changed: { base: 'info', values: 'values', headline: changedField },
  input_schema_changed: { base: 'low', values: 'values', headline: changedField },
  output_schema_changed: { base: 'low', values: 'values', headline: changedField },
  meta_changed: { base: 'info', values: 'values', headline: changedField },
  icons_changed: { base: 'info', values: 'values', headline: changedField },
  other_changed: { base: 'info', values: 'values', headline: changedField },
  silent_change: {
    base: 'high',
    values: 'none',
    headline: () => 'the listing changed without a change notification',
  },
  no_change_notification: {
    base: 'medium',
    values: 'none',
    headline: () => 'the listing changed and the server sends no change notifications',
  },
  flip_flop: { base: 'high', values: 'none', headline: (f) => `${f.tool}'s hints keep changing` },
  unversioned_change: {
    base: 'low',
    values: 'none',
    headline: (f) =>
      `the listing changed while the server version stayed ${typeof f.after === 'string' ? shortQuote(f.after) : 'the same'}`,
  },
} as const satisfies Readonly<Record<string, KindEntry>>;

export type FindingKind = keyof typeof FINDING_CATALOGUE;

/** Design §4, in catalogue order (the order findings of one tool sort in, among equals). */
export const FINDING_KINDS = Object.keys(FINDING_CATALOGUE) as FindingKind[];

/** Kinds whose findings are about text a server supplies (content checks, design §4). */
export const CONTENT_KINDS: ReadonlySet<FindingKind> = new Set([
  'hidden_characters',
  'instruction_injection',
  'tool_shadowing',
]);

export function kindEntry(kind: string): KindEntry | undefined {
  return Object.hasOwn(FINDING_CATALOGUE, kind)
    ? (FINDING_CATALOGUE as Record<string, KindEntry>)[kind]
    : undefined;
}

/** The table's severity for a kind (and, for annotation_relaxed, its hint). */
export function baseSeverity(kind: FindingKind, field?: string): Severity {
  const base = (FINDING_CATALOGUE as Record<FindingKind, KindEntry>)[kind].base;
  if (typeof base === 'string') return base;
  const byField = field === undefined ? undefined : base[field];
  if (byField === undefined) throw new Error(`no base severity for ${kind} ${field ?? ''}`);
  return byField;
}
