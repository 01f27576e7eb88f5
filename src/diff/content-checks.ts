import type { RawTool } from '../listings/canonical.js';
import { baseSeverity, type FindingKind } from './catalogue.js';
import { MISMATCH_RULES, toolFacts, type ToolFacts } from './capability.js';
import { matchRules, type InjectionFamily, type Strength } from './content-rules.js';
import { foldLeetspeak, lexiconForm, normalizeForMatching } from './normalize.js';
import { encodedPayloads, variationSelectorPayload, zeroWidthBinaryPayload } from './payloads.js';
import type { Severity } from './severity.js';
import { confusableTargets, shadowTargets, type ShadowScope } from './shadowing.js';
import { toolTexts, type ToolText } from './text-fields.js';
import {
  codePointLabel,
  decodeTags,
  hiddenRuns,
  visibleText,
  type HiddenClass,
  type HiddenRun,
} from '../text/visible-text.js';

/** What a content finding's interpretation record adds (docs/design.md §5): what, where, why. */
export interface ContentRecord {
  /** JSON path of the text within the tool. */
  path: string;
  location: 'value' | 'key';
  /** The text, or the part around what was found, with invisible characters made visible. */
  excerpt: string;
  /** Text a reader does not see (decoded tags, text pushed off screen, a decoded payload). */
  hidden: string | null;
  /** hidden_characters: how many of each class, with the first code point of each. */
  characters: Array<{ class: HiddenClass; count: number; first: string }>;
  /** The text held U+0000. */
  nul: boolean;
  /** instruction_injection (and hidden text that is an instruction): the rules it matched. */
  rules: Array<{ id: string; family: InjectionFamily; reason: string; in: string }>;
  families: InjectionFamily[];
  /**
   * Every signal that fired on the text (hard and soft, whether or not it counted), with
   * its rule id, where it fired (text, hidden text, a decoded payload) and the text it
   * fired on, made visible.
   */
  signals: Array<{
    id: string;
    family: InjectionFamily;
    strength: Strength;
    in: string;
    text: string;
  }>;
  /** tool_shadowing: the tool (or class of tools) the text directs. */
  target: string | null;
}

/** A content finding before the diff attaches records and escalations. */
export interface ContentDraft {
  kind: Extract<FindingKind, 'hidden_characters' | 'instruction_injection' | 'tool_shadowing'>;
  base: Severity;
  field: string;
  summary: string;
  effect: string;
  content: ContentRecord;
}

export type ContentScope = ShadowScope;

const EXCERPT = 300;

/** Each class as [one, many]. */
const CLASS_TEXT: Readonly<Record<HiddenClass, readonly [string, string]>> = {
  control: ['control character', 'control characters'],
  tag: ['Unicode tag character (U+E0000–U+E007F)', 'Unicode tag characters (U+E0000–U+E007F)'],
  bidi: ['bidirectional control', 'bidirectional controls'],
  'zero-width': ['zero-width character', 'zero-width characters'],
  format: ['invisible format character', 'invisible format characters'],
  'private-use': ['private-use character', 'private-use characters'],
  'variation-selector': ['stray variation selector', 'stray variation selectors'],
  filler: ['blank filler character', 'blank filler characters'],
  'long-whitespace': ['long run of whitespace', 'long runs of whitespace'],
};

function counted(count: number, cls: HiddenClass): string {
  const [one, many] = CLASS_TEXT[cls];
  return count === 1 ? `1 ${one}` : `${count} ${many}`;
}

/** The visible text around a raw offset (the first hidden run), as far as EXCERPT allows. */
function excerptAround(text: string, rawIndex: number): string {
  const visible = visibleText(text);
  if (visible.length <= EXCERPT) return visible;
  const at = visibleText(text.slice(0, rawIndex)).length;
  const start = Math.max(0, Math.min(visible.length - EXCERPT, at - EXCERPT / 3));
  const head = start > 0 ? '…' : '';
  const tail = start + EXCERPT < visible.length ? '…' : '';
  return `${head}${visible.slice(start, start + EXCERPT)}${tail}`;
}

/**
 * The visible text around a match: `at` is its offset in the normalized text, which is
 * about as long as the original, so the same fraction of the way in is near enough.
 */
function excerptOf(text: string, at: number | null, normalizedLength: number): string {
  const visible = visibleText(text);
  if (visible.length <= EXCERPT) return visible;
  const centre =
    at === null ? 0 : Math.floor((at / Math.max(1, normalizedLength)) * visible.length);
  const start = Math.max(0, Math.min(visible.length - EXCERPT, centre - EXCERPT / 2));
  const head = start > 0 ? '…' : '';
  const tail = start + EXCERPT < visible.length ? '…' : '';
  return `${head}${visible.slice(start, start + EXCERPT)}${tail}`;
}

/** Text a run hides from a reader: decoded tags or selectors, or what whitespace pushes away. */
function runHiddenText(run: HiddenRun, text: string): string | null {
  if (run.class === 'tag') return decodeTags(run.codePoints) || null;
  if (run.class === 'variation-selector') return variationSelectorPayload(run.codePoints);
  if (run.class === 'zero-width') return zeroWidthBinaryPayload(run.codePoints);
  if (run.class === 'long-whitespace') {
    const rest = text.slice(run.end).trim();
    return rest === '' ? null : rest;
  }
  return null;
}

interface RuleHit {
  rule: { id: string; family: InjectionFamily; reason: string; strength: Strength };
  in: string;
  /** The text the rule fired on. */
  text: string;
}

function rulesIn(
  text: string,
  where: string,
  normalized: string = normalizeForMatching(text),
  location: ToolText['location'] = 'value',
): { hits: RuleHit[]; at: number | null; length: number } {
  const folded = foldLeetspeak(normalized);
  // A property name is an identifier: "read_the_ssh_key" reads as words too.
  const words =
    location === 'key' && /[_-]|[a-z][A-Z]/.test(text)
      ? text
          .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
          .toLowerCase()
          .replace(/[_-]+/g, ' ')
      : null;
  const plain = words ?? lexiconForm(text);
  const matches = matchRules(normalized, [folded, words], plain);
  let at: number | null = null;
  const first = matches.find((match) => match.rule.all === undefined);
  if (first !== undefined) at = first.rule.pattern.exec(normalized)?.index ?? null;
  return {
    hits: matches.map((match) => ({
      rule: { ...match.rule, strength: match.rule.strength ?? 'hard' },
      in: where,
      text: match.text,
    })),
    at,
    length: normalized.length,
  };
}

function familiesOf(hits: readonly RuleHit[]): InjectionFamily[] {
  return [...new Set(hits.map((hit) => hit.rule.family))];
}

/**
 * The hits that make a finding (evidence, docs/design.md §4): every hard one; soft ones count when
 * three different soft signals fire together, or when they fire in text a reader does not
 * see (hidden or encoded text that reads as an instruction is an instruction).
 */
function countedHits(hits: readonly RuleHit[], hidden: boolean): RuleHit[] {
  const hard = hits.filter((hit) => hit.rule.strength === 'hard');
  const soft = hits.filter((hit) => hit.rule.strength === 'soft');
  if (hidden) return [...hard, ...soft];
  if (new Set(soft.map((hit) => hit.rule.id)).size >= 3) return [...hard, ...soft];
  return hard;
}

function record(entry: ToolText, excerpt: string): ContentRecord {
  return {
    path: entry.path,
    location: entry.location,
    excerpt,
    hidden: null,
    characters: [],
    nul: false,
    rules: [],
    families: [],
    signals: [],
    target: null,
  };
}

function signalsRecord(hits: readonly RuleHit[]): ContentRecord['signals'] {
  return hits.map((hit) => ({
    id: hit.rule.id,
    family: hit.rule.family,
    strength: hit.rule.strength,
    in: hit.in,
    text: visibleText(hit.text),
  }));
}

function rulesRecord(hits: readonly RuleHit[]): ContentRecord['rules'] {
  return hits.map((hit) => ({
    id: hit.rule.id,
    family: hit.rule.family,
    reason: hit.rule.reason,
    in: hit.in,
  }));
}

function whereText(tool: string, entry: ToolText): string {
  return entry.location === 'key'
    ? `${tool}'s property name ${entry.path}`
    : `${tool}'s ${entry.path}`;
}

function quoted(text: string): string {
  return `"${text}"`;
}

/** Every content finding of one string (docs/design.md §4): hidden characters, injection, shadowing. */
export function checkText(
  tool: string,
  entry: ToolText,
  scope: ContentScope | null,
  facts: ToolFacts | null = null,
): ContentDraft[] {
  const drafts: ContentDraft[] = [];
  const { text } = entry;
  const runs = hiddenRuns(text);

  // Text a reader does not see, each piece checked against the rules as well.
  const hiddenParts: string[] = [];
  for (const run of runs) {
    const hidden = runHiddenText(run, text);
    if (hidden !== null) hiddenParts.push(hidden);
  }
  const hiddenAll = hiddenParts.flatMap((part) => rulesIn(part, 'hidden text').hits);
  const hiddenHits = countedHits(hiddenAll, true);
  const payloadAll: RuleHit[] = [];
  const payloadHits: RuleHit[] = [];
  const payloadTexts: string[] = [];
  for (const payload of encodedPayloads(text)) {
    const found = rulesIn(payload.decoded, `decoded ${payload.encoding}`).hits;
    payloadAll.push(...found);
    // Soft signals count in a payload: text hidden in an encoding was not meant to be read.
    const counts = countedHits(found, true);
    if (counts.length > 0) {
      payloadHits.push(...counts);
      payloadTexts.push(
        `${payload.encoding} ${visibleText(payload.encoded)} → ${quoted(visibleText(payload.decoded))}`,
      );
    }
  }
  const normalized = normalizeForMatching(text);
  const visible = rulesIn(text, 'text', normalized, entry.location);
  const mismatch: RuleHit[] = [];
  if (facts !== null) {
    for (const rule of MISMATCH_RULES) {
      const found = rule.test(entry, facts);
      if (found !== null) {
        mismatch.push({
          rule: { id: rule.id, family: rule.family, reason: rule.reason, strength: rule.strength },
          in: 'text',
          text: found,
        });
      }
    }
  }
  const visibleAll = [...visible.hits, ...mismatch];
  const visibleHits = countedHits(visibleAll, false);
  const where = whereText(tool, entry);

  if (runs.length > 0) {
    const counts = new Map<HiddenClass, { count: number; first: number }>();
    for (const run of runs) {
      const known = counts.get(run.class);
      const count = run.class === 'long-whitespace' ? 1 : run.codePoints.length;
      if (known === undefined) counts.set(run.class, { count, first: run.codePoints[0]! });
      else known.count += count;
    }
    const nul = runs.some((run) => run.codePoints.includes(0));
    const hidden = hiddenParts.length === 0 ? null : visibleText(hiddenParts.join(' … '));
    const isInstruction = hiddenHits.length > 0;
    const parts = [...counts].map(([cls, { count }]) => counted(count, cls));
    const notes: string[] = [];
    if (nul)
      notes.push('it holds a NUL character (U+0000), which cuts the text short for some hosts');
    if (counts.has('bidi'))
      notes.push('bidirectional controls make it read differently than it is stored');
    if (hidden !== null) notes.push(`hidden text: ${quoted(hidden)}`);
    const content = record(entry, excerptAround(text, runs[0]!.start));
    content.hidden = hidden;
    content.nul = nul;
    content.characters = [...counts].map(([cls, { count, first }]) => ({
      class: cls,
      count,
      first: codePointLabel(first),
    }));
    content.rules = rulesRecord(hiddenHits);
    content.families = familiesOf(hiddenHits);
    content.signals = signalsRecord(hiddenAll);
    drafts.push({
      kind: 'hidden_characters',
      base: isInstruction ? 'critical' : baseSeverity('hidden_characters'),
      field: entry.path,
      summary: `${where} holds ${parts.join(', ')} that a reader cannot see${notes.length > 0 ? `; ${notes.join('; ')}` : ''}; text: ${quoted(content.excerpt)}`,
      effect: isInstruction
        ? `the hidden text is an instruction to the model (${[...new Set(hiddenHits.map((hit) => hit.rule.reason))].join('; ')}), which a person reviewing the tool does not see`
        : 'the model reads what a person reviewing the tool does not see',
      content,
    });
  }

  const injection = [...visibleHits, ...hiddenHits, ...payloadHits];
  if (injection.length > 0) {
    const content = record(entry, excerptOf(text, visible.at, visible.length));
    content.rules = rulesRecord(injection);
    content.families = familiesOf(injection);
    content.signals = signalsRecord([...visibleAll, ...hiddenAll, ...payloadAll]);
    const hiddenText = [...hiddenParts.map((part) => quoted(visibleText(part))), ...payloadTexts];
    content.hidden = hiddenText.length === 0 ? null : hiddenText.join(' … ');
    const reasons = [...new Set(injection.map((hit) => hit.rule.reason))];
    const decodedNote = payloadTexts.length > 0 ? ` (decoded: ${payloadTexts.join('; ')})` : '';
    drafts.push({
      kind: 'instruction_injection',
      base: baseSeverity('instruction_injection'),
      field: entry.path,
      summary: `${where} addresses the model: it ${reasons.join('; it ')}${decodedNote}; text: ${quoted(content.excerpt)}`,
      effect:
        'hosts pass this text to the model unfiltered, and a model that reads it may act on it against its user',
      content,
    });
  }

  if (scope !== null) {
    const targets = shadowTargets(tool, text, scope, normalized);
    if (entry.path === 'name' && entry.location === 'value') {
      targets.push(...confusableTargets(text, scope));
    }
    if (targets.length > 0) {
      const content = record(entry, excerptOf(text, null, 1));
      content.target = targets.join(', ');
      drafts.push({
        kind: 'tool_shadowing',
        base: baseSeverity('tool_shadowing'),
        field: entry.path,
        summary:
          entry.path === 'name' && targets.some((target) => target.startsWith('a look-alike'))
            ? `${where} ${quoted(visibleText(text))}${scope.server === null ? '' : ` on server ${scope.server}`} is ${targets.join(', ')}`
            : `${where} directs how ${targets.join(', ')} is to be used: ${quoted(content.excerpt)}`,
        effect:
          'a model follows it when it calls that tool, so this server steers calls meant for another one',
        content,
      });
    }
  }
  return drafts;
}

export interface ToolContentOptions {
  scope: ContentScope | null;
  /** True when a text already appeared in the previous listing: it was checked then. */
  seenBefore: (text: string) => boolean;
}

/**
 * The content findings of one tool (docs/design.md §4): every string of `after` that `before` (the
 * same tool, or the one it was renamed from; null for a new tool) did not hold, and that
 * the previous listing did not hold anywhere.
 */
export function toolContentDrafts(
  tool: string,
  before: RawTool | null,
  after: RawTool,
  options: ToolContentOptions,
): ContentDraft[] {
  const known = before === null ? null : new Set(toolTexts(before).map((entry) => entry.text));
  const drafts: ContentDraft[] = [];
  const facts = toolFacts(after);
  for (const entry of toolTexts(after)) {
    if (known?.has(entry.text)) continue;
    const found = checkText(tool, entry, options.scope, facts);
    if (found.length > 0 && !options.seenBefore(entry.text)) drafts.push(...found);
  }
  return drafts;
}
