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
  // "instead of executing commands", "rather than writing": another tool's action, not this one's
  'instead',
  'rather',
  'unlike',
]);
/** ...or followed by one of these ("deletes nothing"). */
const NEGATING_OBJECTS = new Set(['nothing', 'none']);
const LOOKBACK = 3;
/** Words that join a list of verbs, which one negation covers. */
const LIST_WORDS = new Set(['or', 'and', 'nor', 'even']);

/** A word that stands for nothing: an identifier inside prose keeps its place in the clause. */
const IDENTIFIER_WORD = '';

/** Splits an identifier into lowercase words: snake_case, kebab-case, camelCase. */
function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z']+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
}

/**
 * A token of prose written as an identifier: snake_case, camelCase, a path, something in
 * backticks, or a name with two hyphens. Its words are not the tool's own action
 * ("fileWriteLineLimit", "instead of execute_command").
 */
function isIdentifier(token: string): boolean {
  return (
    /[A-Za-z0-9]_[A-Za-z0-9]|^_|_$/.test(token) ||
    /[a-z][A-Z]/.test(token) ||
    /^`|`$/.test(token) ||
    /[/\\.(){}[\]=<>]/.test(token.replace(/[.,;:!?)]+$/, '').replace(/^[(]+/, '')) ||
    (token.match(/-/g)?.length ?? 0) >= 2
  );
}

/** Prose in clauses of lowercase words; identifiers become placeholders. */
function proseClauses(text: string): string[][] {
  const plain = text.replace(/[\u2018\u2019]/g, "'");
  return plain.split(/[.;:!?\n\r]+(?=\s|$)|\n/).map((clause) =>
    clause
      .split(/\s+/)
      .filter((token) => token !== '')
      .flatMap((token) =>
        isIdentifier(token)
          ? [IDENTIFIER_WORD]
          : token
              .toLowerCase()
              .split(/[^a-z']+/)
              .map((word) => word.replace(/^'+|'+$/g, ''))
              .filter((word) => word !== ''),
      ),
  );
}

function clauses(text: string, kind: 'name' | 'prose'): string[][] {
  return kind === 'name' ? [identifierWords(text)] : proseClauses(text);
}

/** Words of `text` that a tool asserts of itself, each with whether it is negated. */
export function ownWords(
  text: string,
  kind: 'name' | 'prose' = 'prose',
): Array<{ word: string; negated: boolean }> {
  const out: Array<{ word: string; negated: boolean }> = [];
  for (const words of clauses(text, kind)) {
    // "does not write, delete or overwrite": a negation covers the verbs listed after it.
    let listNegated = false;
    words.forEach((word, index) => {
      if (word === IDENTIFIER_WORD) return;
      const before = words.slice(Math.max(0, index - LOOKBACK), index);
      const after = words[index + 1];
      const negated =
        listNegated ||
        before.some((w) => NEGATORS.has(w)) ||
        (after !== undefined && NEGATING_OBJECTS.has(after));
      out.push({ word, negated });
      if (NEGATORS.has(word)) listNegated = true;
      else if (!VERB_BY_FORM.has(word) && !LIST_WORDS.has(word)) listNegated = false;
      else if (negated) listNegated = true;
    });
  }
  return out;
}

/**
 * The verbs (their base forms) that `text` asserts, in order of first appearance. A name
 * (`kind: 'name'`, the default for text without spaces) is split as an identifier; prose
 * skips identifiers inside it.
 */
export function actionVerbs(text: string, kind?: 'name' | 'prose'): string[] {
  const found: string[] = [];
  for (const { word, negated } of ownWords(text, kind ?? (/\s/.test(text) ? 'prose' : 'name'))) {
    const verb = VERB_BY_FORM.get(word);
    if (verb === undefined || negated || found.includes(verb)) continue;
    found.push(verb);
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
  const name = actionVerbs(tool.name, 'name');
  const description =
    typeof tool['description'] === 'string' ? actionVerbs(tool['description'], 'prose') : [];
  return name.length === 0 && description.length === 0 ? null : { name, description };
}

export function sameEvidence(a: ContradictionEvidence | null, b: ContradictionEvidence | null) {
  if (a === null || b === null) return a === b;
  const key = (e: ContradictionEvidence) =>
    [...new Set([...e.name, ...e.description])].sort().join();
  return key(a) === key(b);
}
