import { hiddenRuns } from './visible-text.js';

/**
 * Text as the content rules match it (design §4): hidden code points removed (so that a
 * zero-width space inside "ig\u200Bnore" does not defeat a rule), NFKC (fullwidth and
 * mathematical letters become plain ones), case folded, common homoglyphs folded to Latin,
 * runs of spaces and tabs made one space. Line breaks stay: some rules anchor on them.
 */
export function normalizeForMatching(text: string): string {
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
  // eslint-disable-next-line no-control-regex -- only ASCII needs no folding
  if (!/^[\x00-\x7f]*$/.test(plain)) {
    plain = plain.normalize('NFKC').toLowerCase().normalize('NFKC');
    plain = plain.replace(HOMOGLYPH_PATTERN, (char) => HOMOGLYPHS.get(char) ?? char);
  } else {
    plain = plain.toLowerCase();
  }
  return plain.replace(/[ \t\u00a0\u2000-\u200a\u3000]+/g, ' ').replace(/\r\n?/g, '\n');
}

/** Cyrillic and Greek letters that look like Latin ones, and a few symbols. */
const HOMOGLYPHS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    а: 'a',
    в: 'b',
    е: 'e',
    ё: 'e',
    к: 'k',
    м: 'm',
    н: 'h',
    о: 'o',
    р: 'p',
    с: 'c',
    т: 't',
    у: 'y',
    х: 'x',
    і: 'i',
    ї: 'i',
    ј: 'j',
    ѕ: 's',
    ԁ: 'd',
    ԛ: 'q',
    ԝ: 'w',
    ɡ: 'g',
    ɩ: 'i',
    α: 'a',
    β: 'b',
    ε: 'e',
    η: 'n',
    ι: 'i',
    κ: 'k',
    ν: 'v',
    ο: 'o',
    ρ: 'p',
    τ: 't',
    υ: 'u',
    χ: 'x',
    ϲ: 'c',
    ʏ: 'y',
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
const HOMOGLYPH_PATTERN = new RegExp(`[${[...HOMOGLYPHS.keys()].join('')}]`, 'gu');

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
    if (!/[013457@$!]/.test(word) || !/[a-z]{2}|[a-z][013457@$!][a-z]/.test(word)) return word;
    // A trailing "!" ends a sentence; hex digits and version tags stay.
    if (/^[0-9a-f]+$/.test(word) || /^v?\d/.test(word)) return word;
    const core = word.replace(/!+$/, '');
    const rest = word.slice(core.length);
    const next = core.replace(/[013457@$!]/g, (char) => LEET[char] ?? char);
    if (next === core) return word;
    changed = true;
    return next + rest;
  });
  return changed ? folded : null;
}
