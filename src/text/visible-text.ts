/**
 * Code points a reader cannot see, or that reorder what they see (docs/design.md §4,
 * hidden_characters), and how to show them: one judgment, used both to report them and to
 * print server text with them made visible (`⟦U+E0041⟧`). What is legitimate (a joiner
 * inside an emoji sequence, a variation selector after an emoji or an ideograph, a
 * non-joiner in Persian or Devanagari) is neither reported nor escaped.
 */

export type HiddenClass =
  | 'control'
  | 'tag'
  | 'bidi'
  | 'zero-width'
  | 'format'
  | 'private-use'
  | 'variation-selector'
  | 'filler'
  | 'long-whitespace';

export interface HiddenRun {
  class: HiddenClass;
  /** UTF-16 offsets of the run in the text. */
  start: number;
  end: number;
  /** The code points of the run (for long-whitespace: its length in code points). */
  codePoints: number[];
}

/**
 * A quick test for text that may hold anything below: most text holds none of it. Built
 * from a string: as a literal, its control and combining characters trip the linter.
 */
const SUSPECT = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- single code points are meant
  String.raw`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ue000-\uf8ff\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud800-\udfff]|[ \t\u00a0\u2000-\u200a\u3000]{40}|(?:\n[ \t]*){10}`,
);

/** Horizontal whitespace this long pushes what follows off a reader's screen. */
export const LONG_WHITESPACE = 40;
/** ...and so do this many line breaks in a row. */
export const LONG_LINE_BREAKS = 10;

const FORMAT = /^\p{Cf}$/u;
const PRIVATE_USE = /^\p{Co}$/u;
const PICTOGRAPHIC = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]$/u;
const IDEOGRAPH = /^[\p{Ideographic}\p{Script=Han}]$/u;
/** Scripts whose spelling uses ZWJ/ZWNJ between letters (Unicode §23.2). */
const JOINING_SCRIPT =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Mongolian}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}\p{M}]$/u;

function isHorizontalSpace(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0xa0 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x3000
  );
}

function isVariationSelector(code: number): boolean {
  return (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);
}

function charOf(code: number | undefined): string {
  return code === undefined ? '' : String.fromCodePoint(code);
}

/**
 * The class of one code point given its neighbours, or null when a reader sees it (or it
 * is part of legitimate text). `prev`/`next` are the neighbouring code points.
 */
function classify(code: number, prev: number | undefined, next: number | undefined) {
  if (code === 0x09 || code === 0x0a || code === 0x0d) return null;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'control';
  if (code < 0xa0) return null;
  if (code >= 0xe0000 && code <= 0xe007f) return 'tag';
  if (
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  ) {
    return 'bidi';
  }
  if (code === 0x200c || code === 0x200d) {
    const before = charOf(prev);
    const after = charOf(next);
    // Emoji ZWJ sequences (👨‍👩‍👧), joiners inside the words of scripts that use them.
    if (
      code === 0x200d &&
      PICTOGRAPHIC.test(after) &&
      (PICTOGRAPHIC.test(before) || prev === 0xfe0f)
    ) {
      return null;
    }
    if (JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after)) return null;
    return 'zero-width';
  }
  if (code === 0x200b || code === 0x2060 || code === 0xfeff || code === 0x180e) {
    return 'zero-width';
  }
  if (isVariationSelector(code)) {
    const before = charOf(prev);
    // VS15/VS16 after an emoji, or a selector after an ideograph (CJK variants).
    if (code <= 0xfe0f && (PICTOGRAPHIC.test(before) || /^[\p{Emoji}]$/u.test(before))) return null;
    if (IDEOGRAPH.test(before)) return null;
    return 'variation-selector';
  }
  if (
    code === 0x115f ||
    code === 0x1160 ||
    code === 0x3164 ||
    code === 0xffa0 ||
    code === 0x2800 ||
    code === 0x17b4 ||
    code === 0x17b5 ||
    code === 0x034f
  ) {
    return 'filler';
  }
  if (code >= 0xd800 && code <= 0xdfff) return 'control'; // a lone surrogate
  const char = String.fromCodePoint(code);
  if (FORMAT.test(char)) return 'format';
  if (PRIVATE_USE.test(char)) return 'private-use';
  return null;
}

/** Whether the text may hold a hidden run at all (cheap; a false positive is fine). */
export function mayHideCharacters(text: string): boolean {
  return SUSPECT.test(text);
}

/** Every run of hidden code points in `text`, in order; consecutive ones of a class merge. */
export function hiddenRuns(text: string): HiddenRun[] {
  if (!SUSPECT.test(text)) return [];
  const codes: number[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!;
    codes.push(code);
    offsets.push(i);
    i += code > 0xffff ? 2 : 1;
  }
  offsets.push(text.length);
  const runs: HiddenRun[] = [];
  for (let k = 0; k < codes.length; k++) {
    const code = codes[k]!;
    if (isHorizontalSpace(code) || code === 0x0a || code === 0x0d) {
      const run = whitespaceRun(codes, k);
      if (run > k) {
        runs.push({
          class: 'long-whitespace',
          start: offsets[k]!,
          end: offsets[run]!,
          codePoints: codes.slice(k, run),
        });
        k = run - 1;
      }
      continue;
    }
    const found = classify(code, codes[k - 1], codes[k + 1]);
    if (found === null) continue;
    const last = runs.at(-1);
    if (last !== undefined && last.class === found && last.end === offsets[k]) {
      last.end = offsets[k + 1]!;
      last.codePoints.push(code);
    } else {
      runs.push({ class: found, start: offsets[k]!, end: offsets[k + 1]!, codePoints: [code] });
    }
  }
  return runs;
}

/** The end (exclusive) of a long whitespace run starting at `k`, or `k` when it is short. */
function whitespaceRun(codes: readonly number[], k: number): number {
  let end = k;
  let spaces = 0;
  let breaks = 0;
  let longest = 0;
  while (end < codes.length) {
    const code = codes[end]!;
    if (code === 0x0a) {
      breaks++;
      spaces = 0;
    } else if (isHorizontalSpace(code)) {
      spaces++;
      longest = Math.max(longest, spaces);
    } else if (code !== 0x0d) {
      break;
    }
    end++;
  }
  return longest >= LONG_WHITESPACE || breaks >= LONG_LINE_BREAKS ? end : k;
}

/** Text hidden in Unicode tag characters: U+E0020–U+E007E mirror ASCII 0x20–0x7E. */
export function decodeTags(codePoints: readonly number[]): string {
  return codePoints
    .filter((code) => code >= 0xe0020 && code <= 0xe007e)
    .map((code) => String.fromCharCode(code - 0xe0000))
    .join('');
}

export function codePointLabel(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with every hidden code point written as a visible escape (`⟦U+E0041⟧`), and a
 * long whitespace run as one (`⟦64 × U+0020⟧`). Text without any is returned as is.
 */
export function visibleText(text: string): string {
  const runs = hiddenRuns(text);
  if (runs.length === 0) return text;
  let out = '';
  let at = 0;
  for (const run of runs) {
    out += text.slice(at, run.start);
    if (run.class === 'long-whitespace') {
      const breaks = run.codePoints.filter((code) => code === 0x0a).length;
      out +=
        breaks >= LONG_LINE_BREAKS
          ? `⟦${breaks} line breaks⟧`
          : `⟦${run.codePoints.length} × whitespace⟧`;
    } else {
      out += run.codePoints.map((code) => `⟦${codePointLabel(code)}⟧`).join('');
    }
    at = run.end;
  }
  return out + text.slice(at);
}
