import type { RawTool } from '../listings/canonical.js';

/**
 * Verbs that say a tool changes, sends or ends something, each with the word forms that
 * count. Only active forms (base, -s, -ing, and a few abbreviations seen in tool names):
 * past participles are left out because read tools describe what they return with them
 * ("lists deleted files", "messages sent by the page").
 */
const VERB_FORMS: Readonly<Record<string, readonly string[]>> = {
  delete: ['delete', 'deletes', 'deleting', 'del'],
  drop: ['drop', 'drops', 'dropping'],
  wipe: ['wipe', 'wipes', 'wiping'],
  purge: ['purge', 'purges', 'purging'],
  remove: ['remove', 'removes', 'removing', 'rm'],
  overwrite: ['overwrite', 'overwrites', 'overwriting'],
  write: ['write', 'writes', 'writing'],
  send: ['send', 'sends', 'sending'],
  pay: ['pay', 'pays', 'paying'],
  transfer: ['transfer', 'transfers', 'transferring'],
  execute: ['execute', 'executes', 'executing', 'exec'],
  kill: ['kill', 'kills', 'killing'],
  destroy: ['destroy', 'destroys', 'destroying'],
  truncate: ['truncate', 'truncates', 'truncating'],
  erase: ['erase', 'erases', 'erasing'],
  revoke: ['revoke', 'revokes', 'revoking'],
  unlink: ['unlink', 'unlinks', 'unlinking'],
};

const VERB_BY_FORM = new Map<string, string>(
  Object.entries(VERB_FORMS).flatMap(([verb, forms]) => forms.map((form) => [form, verb] as const)),
);

/** A verb preceded (within three words of its clause) by one of these is negated. */
const NEGATORS = new Set([
  'not',
  'never',
  'no',
  'without',
  'cannot',
  "can't",
  "doesn't",
  "don't",
  "won't",
  "isn't",
  'nor',
]);
/** ...or followed by one of these ("deletes nothing"). */
const NEGATING_OBJECTS = new Set(['nothing', 'none']);
const LOOKBACK = 3;

/** Splits identifiers and prose into lowercase words: snake_case, kebab-case, camelCase. */
function clauses(text: string): string[][] {
  const split = text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return split.split(/[.;:!?\n\r]+/).map((clause) =>
    clause
      .split(/[^a-z']+/)
      .map((word) => word.replace(/^'+|'+$/g, ''))
      .filter((word) => word !== ''),
  );
}

/** The verbs (their base forms) that `text` asserts, in order of first appearance. */
export function actionVerbs(text: string): string[] {
  const found: string[] = [];
  for (const words of clauses(text)) {
    words.forEach((word, index) => {
      const verb = VERB_BY_FORM.get(word);
      if (verb === undefined || found.includes(verb)) return;
      const before = words.slice(Math.max(0, index - LOOKBACK), index);
      if (before.some((w) => NEGATORS.has(w))) return;
      const after = words[index + 1];
      if (after !== undefined && NEGATING_OBJECTS.has(after)) return;
      found.push(verb);
    });
  }
  return found;
}

export interface ContradictionEvidence {
  name: string[];
  description: string[];
}

/**
 * What a tool's name and description say it does that a read-only tool would not. Returns
 * null when they say nothing of the kind. Callers decide whether the tool claims read-only.
 */
export function contradictionEvidence(tool: RawTool): ContradictionEvidence | null {
  const name = actionVerbs(tool.name);
  const description =
    typeof tool['description'] === 'string' ? actionVerbs(tool['description']) : [];
  return name.length === 0 && description.length === 0 ? null : { name, description };
}

export function sameEvidence(a: ContradictionEvidence | null, b: ContradictionEvidence | null) {
  if (a === null || b === null) return a === b;
  const key = (e: ContradictionEvidence) =>
    [...new Set([...e.name, ...e.description])].sort().join();
  return key(a) === key(b);
}
