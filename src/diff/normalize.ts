import { foldConfusables } from './confusable-skeleton.js';
import { hiddenRuns } from '../text/visible-text.js';

/**
 * Text as the content rules match it (docs/design.md §4): hidden code points removed (so that a
 * zero-width space inside "ig\u200Bnore" does not defeat a rule), NFKC (fullwidth and
 * mathematical letters become plain ones), case folded, letters that imitate ASCII ones
 * folded to them (Unicode's confusables, confusable-skeleton.ts),
 * runs of spaces and tabs made one space. Line breaks stay: some rules anchor on them.
 */
export function normalizeForMatching(text: string): string {
  let plain = withoutHidden(text);
  // eslint-disable-next-line no-control-regex -- only ASCII needs no folding
  if (!/^[\x00-\x7f]*$/.test(plain)) {
    plain = plain.normalize('NFKC').toLowerCase().normalize('NFKC');
    plain = plain.replace(PUNCTUATION_PATTERN, (char) => PUNCTUATION.get(char) ?? char);
    plain = foldConfusables(plain);
  } else {
    plain = plain.toLowerCase();
  }
  return plain.replace(/[ \t\u00a0\u2000-\u200a\u3000]+/g, ' ').replace(/\r\n?/g, '\n');
}

/**
 * Text as the multilingual lexicon reads it (model-lexicon.ts): hidden code points out,
 * NFKC, lower case, typographic punctuation as ASCII, but letters kept in their script.
 */
export function lexiconForm(text: string): string {
  let plain = withoutHidden(text);
  // eslint-disable-next-line no-control-regex -- only ASCII needs no folding
  if (!/^[\x00-\x7f]*$/.test(plain)) {
    plain = plain.normalize('NFKC').toLowerCase();
    plain = plain.replace(PUNCTUATION_PATTERN, (char) => PUNCTUATION.get(char) ?? char);
  } else {
    plain = plain.toLowerCase();
  }
  return plain.replace(/[ \t\u00a0\u2000-\u200a\u3000]+/g, ' ').replace(/\r\n?/g, '\n');
}

function withoutHidden(text: string): string {
  let plain = text;
  const runs = hiddenRuns(text);
  if (runs.length > 0) {
    let kept = '';
    let at = 0;
    for (const run of runs) {
      kept += text.slice(at, run.start);
      // A long whitespace run still separates words.
      if (run.class === 'long-whitespace') kept += ' ';
      at = run.end;
    }
    plain = kept + text.slice(at);
  }
  return plain;
}

/** Typographic punctuation written as its ASCII counterpart (dashes, quotes, slashes). */
const PUNCTUATION: ReadonlyMap<string, string> = new Map(
  Object.entries({
    '‐': '-',
    '‑': '-',
    '‒': '-',
    '–': '-',
    '—': '-',
    '⁄': '/',
    '∕': '/',
    '\u2018': "'",
    '\u2019': "'",
    '\u201c': '"',
    '\u201d': '"',
    '．': '.',
  }),
);
const PUNCTUATION_PATTERN = new RegExp(`[${[...PUNCTUATION.keys()].join('')}]`, 'gu');

/** Digits and symbols that stand for letters in leetspeak. */
const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};

/**
 * Leetspeak folded, only inside words that mix letters with such digits or symbols
 * ("1gn0re" → "ignore"): numbers, versions and hex stay as they are. Null when `text` (a
 * normalized text) has no such word, so that callers match the plain text only.
 */
export function foldLeetspeak(normalized: string): string | null {
  if (!/[a-z][013457@$!]|[013457@$!][a-z]/.test(normalized)) return null;
  let changed = false;
  const folded = normalized.replace(/[a-z0-9@$!]*[a-z][a-z0-9@$!]*/g, (word) => {
    if (!/[013457@$!]/.test(word) || !/[a-z]/.test(word)) return word;
    // A trailing "!" ends a sentence; hex digits, versions and numbers with a unit stay.
    if (
      /^[0-9a-f]+$/.test(word) ||
      /^v\d/.test(word) ||
      /^\d+(?:ms|s|m|h|d|k|kb|mb|gb|px|x)$/.test(word)
    ) {
      return word;
    }
    const core = word.replace(/!+$/, '');
    const rest = word.slice(core.length);
    const next = core.replace(/[013457@$!]/g, (char) => LEET[char] ?? char);
    if (next === core) return word;
    changed = true;
    return next + rest;
  });
  return changed ? folded : null;
}
