/**
 * Text hidden inside a string in a form a reader does not read (docs/design.md §4): base64,
 * base32, hex, URL and HTML-entity encoding, rot13, reversed text, an HTML comment (a
 * rendered description does not show it), and bytes smuggled in variation selectors or in
 * zero-width binary. Only what decodes to readable text counts: hashes, ids and images
 * decode to bytes and are left alone. Each decoder is pure and is tested on its own.
 */

export type PayloadEncoding =
  | 'base64'
  | 'base32'
  | 'hex'
  | 'url encoding'
  | 'html entities'
  | 'rot13'
  | 'reversed text'
  | 'html comment'
  | 'variation selectors'
  | 'zero-width binary';

export interface Payload {
  encoding: PayloadEncoding;
  /** The encoded run as it appears in the text (cut to 80 characters). */
  encoded: string;
  decoded: string;
}

const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const BASE32_RUN = /(?<![A-Za-z0-9=])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9=])/g;
const HEX_RUN = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}(?:[ :]?)){12,}(?![0-9A-Fa-f])/g;
const PERCENT_RUN = /(?:[^\s%]*%[0-9A-Fa-f]{2}){4,}[^\s%]*/g;
const ENTITY_RUN = /(?:&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[a-z]{2,8});\s?){4,}/g;
const HTML_COMMENT = /<!--([\s\S]*?)-->/g;
const MAX_RUN = 65536;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Readable text: mostly printable, with at least two words. */
function readableText(text: string): string | null {
  if (text.length < 8) return null;
  // Words separated by spaces, or a run of CJK (which has no spaces).
  if (
    !/[\p{L}]{2,}[\s]+[\p{L}]{2,}|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{4,}/u.test(
      text,
    )
  ) {
    return null;
  }
  let printable = 0;
  for (const char of text) if (/[\p{L}\p{N}\p{P}\p{S}\p{M}\s]/u.test(char)) printable++;
  return printable / [...text].length >= 0.95 ? text : null;
}

/** Readable text from bytes: valid UTF-8 first. */
function readable(bytes: Uint8Array): string | null {
  try {
    return readableText(utf8.decode(bytes));
  } catch {
    return null;
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export function decodeBase64(run: string): string | null {
  return readable(Buffer.from(run, 'base64'));
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32. */
export function decodeBase32(run: string): string | null {
  const clean = run.replace(/=+$/, '');
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return readable(Uint8Array.from(bytes));
}

export function decodeHex(run: string): string | null {
  return readable(Buffer.from(run.replace(/[ :]/g, ''), 'hex'));
}

export function decodePercent(run: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(run.replace(/\+/g, ' '));
  } catch {
    return null;
  }
  return decoded === run ? null : readableText(decoded);
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  sol: '/',
  colon: ':',
  period: '.',
  comma: ',',
  lowbar: '_',
};

export function decodeEntities(run: string): string | null {
  const decoded = run.replace(
    /&(#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[a-z]{2,8});\s?/g,
    (whole, body: string) => {
      if (body.startsWith('#x'))
        return String.fromCodePoint(Math.min(0x10ffff, parseInt(body.slice(2), 16)));
      if (body.startsWith('#'))
        return String.fromCodePoint(Math.min(0x10ffff, parseInt(body.slice(1), 10)));
      return NAMED_ENTITIES[body] ?? whole;
    },
  );
  return readableText(decoded);
}

export function rot13(text: string): string {
  return text.replace(/[a-zA-Z]/g, (char) => {
    const base = char <= 'Z' ? 65 : 97;
    return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base);
  });
}

export function reversed(text: string): string {
  return [...text].reverse().join('');
}

/**
 * Words that any English sentence is full of: a text that reads as English only once
 * rot13'd or reversed was written so that a reader would not read it.
 */
const COMMON =
  /\b(?:the|to|and|of|you|your|is|are|this|that|all|any|with|for|from|user|it|in|do|not|must|send|read|file|before|always|never)\b/g;

function commonWords(text: string): number {
  return text.toLowerCase().match(COMMON)?.length ?? 0;
}

/** `candidate` (a transform of `text`) when it reads as English and `text` does not. */
function betterEnglish(text: string, candidate: string): boolean {
  const plain = commonWords(text);
  const other = commonWords(candidate);
  return other >= 3 && other >= 2 * plain + 2;
}

/** Every encoded payload of `text` that decodes to readable text, in decoder order. */
export function encodedPayloads(text: string): Payload[] {
  const found: Payload[] = [];
  if (text.length < 16) return found;
  const add = (encoding: PayloadEncoding, encoded: string, decoded: string | null) => {
    if (decoded !== null) found.push({ encoding, encoded: clip(encoded), decoded });
  };
  // Without lookbehind, this scans fast; most text has no 16-character run at all.
  if (/[A-Za-z0-9+/_-]{16}/.test(text)) {
    for (const match of text.matchAll(BASE64_RUN)) {
      const run = match[0];
      // A word, a path or an identifier is not base64: real payloads mix cases and digits.
      if (run.length > MAX_RUN || !/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
      if (/^[0-9A-Fa-f]+$/.test(run)) continue;
      add('base64', run, decodeBase64(run));
    }
    for (const match of text.matchAll(BASE32_RUN)) {
      if (match[0].length <= MAX_RUN) add('base32', match[0], decodeBase32(match[0]));
    }
    for (const match of text.matchAll(HEX_RUN)) {
      if (match[0].length <= MAX_RUN) add('hex', match[0], decodeHex(match[0].trim()));
    }
  }
  if (text.includes('%')) {
    for (const match of text.matchAll(PERCENT_RUN))
      add('url encoding', match[0], decodePercent(match[0]));
  }
  if (text.includes('&')) {
    for (const match of text.matchAll(ENTITY_RUN))
      add('html entities', match[0], decodeEntities(match[0]));
  }
  if (text.includes('<!--')) {
    for (const match of text.matchAll(HTML_COMMENT)) {
      const inner = match[1]!.trim();
      if (inner !== '') add('html comment', match[0], inner);
    }
  }
  // Sentence by sentence: a payload is often one sentence after an ordinary description.
  if (/[a-z]{3,} [a-z]{2,} [a-z]{2,}/i.test(text)) {
    for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
      if (!/[a-z]{3,} [a-z]{2,} [a-z]{2,}/i.test(sentence)) continue;
      const turned = rot13(sentence);
      if (betterEnglish(sentence, turned)) add('rot13', sentence, turned);
      const back = reversed(sentence);
      if (betterEnglish(sentence, back)) add('reversed text', sentence, back);
    }
  }
  return found;
}

/**
 * Bytes carried by a run of variation selectors (VS1–VS16 are 0–15, VS17–VS256 are
 * 16–255), a way to hide text after an emoji; null unless they decode to readable text.
 */
export function variationSelectorPayload(codePoints: readonly number[]): string | null {
  if (codePoints.length < 4) return null;
  const bytes = codePoints.map((code) =>
    code >= 0xfe00 && code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16,
  );
  if (bytes.some((byte) => byte < 0 || byte > 255)) return null;
  return readable(Uint8Array.from(bytes));
}

/**
 * Bits carried by a run of two zero-width characters (one is 0, the other 1), eight to a
 * byte; other invisible characters in the run (word joiners as separators) are skipped.
 * Both readings are tried: null unless one decodes to readable text.
 */
export function zeroWidthBinaryPayload(codePoints: readonly number[]): string | null {
  const distinct = [...new Set(codePoints)].filter((code) => code !== 0x2060 && code !== 0xfeff);
  if (distinct.length !== 2) return null;
  const bits = codePoints.filter((code) => distinct.includes(code));
  if (bits.length < 64) return null;
  for (const zero of distinct) {
    const bytes: number[] = [];
    for (let at = 0; at + 8 <= bits.length; at += 8) {
      let byte = 0;
      for (let bit = 0; bit < 8; bit++) byte = (byte << 1) | (bits[at + bit] === zero ? 0 : 1);
      bytes.push(byte);
    }
    const text = readable(Uint8Array.from(bytes));
    if (text !== null) return text;
  }
  return null;
}
