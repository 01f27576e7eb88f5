import { customType } from 'drizzle-orm/pg-core';

/*
 * Text a server sent may hold what PostgreSQL refuses: U+0000 (in `text` it is an invalid
 * byte, in `jsonb` "unsupported Unicode escape sequence"), and lone surrogates, which
 * `jsonb` refuses as escapes and the drivers silently turn into U+FFFD on their way to
 * UTF-8 in `text`. A server could relax a hint and add a NUL to make the recording fail,
 * and so stay unseen. Every column that holds server text therefore stores it escaped,
 * losslessly, with U+001A (SUB, "substitute", which is storable everywhere) as the escape:
 *
 *   U+0000          → SUB "0"
 *   lone surrogate  → SUB "u" and its four hex digits (lowercase)
 *   SUB             → SUB SUB
 *
 * Any other text is stored as it is, so ordinary rows read the same in SQL. Canonical
 * hashes are computed on the original text, never on this form, and the columns below
 * decode on every read (drizzle calls fromDriver), so nothing outside this file sees it.
 */

const SUB = '\u001a';
const SUB_CODE = 0x1a;

/* eslint-disable no-control-regex -- matching NUL and SUB is the point here */
/** A NUL, a SUB, or a surrogate that is not half of a pair: what needs escaping. */
const UNSTORABLE =
  /[\u0000\u001a]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/* eslint-enable no-control-regex */

export function toStorableText(text: string): string {
  if (!UNSTORABLE.test(text)) return text;
  let out = '';
  let start = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    let escaped: string | undefined;
    if (c === 0) escaped = `${SUB}0`;
    else if (c === SUB_CODE) escaped = `${SUB}${SUB}`;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a well-formed pair is stored as the character it encodes
        continue;
      }
      escaped = `${SUB}u${c.toString(16).padStart(4, '0')}`;
    }
    if (escaped === undefined) continue;
    out += text.slice(start, i) + escaped;
    start = i + 1;
  }
  return out + text.slice(start);
}

export function fromStorableText(text: string): string {
  if (!text.includes(SUB)) return text;
  let out = '';
  let start = 0;
  for (let i = text.indexOf(SUB); i !== -1; i = text.indexOf(SUB, start)) {
    const marker = text[i + 1];
    let original: string;
    let length = 2;
    if (marker === '0') original = '\u0000';
    else if (marker === SUB) original = SUB;
    else if (marker === 'u' && /^[0-9a-f]{4}$/.test(text.slice(i + 2, i + 6))) {
      original = String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      length = 6;
    } else {
      // Not written by toStorableText (a row stored before it existed): kept as it is.
      original = SUB;
      length = 1;
    }
    out += text.slice(start, i) + original;
    start = i + length;
  }
  return out + text.slice(start);
}

/**
 * A JSON value with every string, keys included, in its storable form. Returns the value
 * itself when nothing needed escaping, so that the common case allocates nothing.
 */
export function toStorableJson<T>(value: T): T {
  return mapStrings(value, toStorableText) as T;
}

export function fromStorableJson<T>(value: T): T {
  return mapStrings(value, fromStorableText) as T;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const mapped = mapStrings(item, map);
      if (mapped !== item) (copy ??= [...value])[i] = mapped;
    }
    return copy ?? value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  let changed = false;
  const entries = Object.keys(record).map((key): [string, unknown] => {
    const item = record[key];
    const mappedKey = map(key);
    const mapped = mapStrings(item, map);
    if (mappedKey !== key || mapped !== item) changed = true;
    return [mappedKey, mapped];
  });
  // fromEntries defines own properties: a key "__proto__" stays a key.
  return changed ? Object.fromEntries(entries) : value;
}

/** `text` holding server text, stored in the form above. */
export const storableText = customType<{ data: string; driverData: string }>({
  dataType: () => 'text',
  toDriver: (value) => toStorableText(value),
  fromDriver: (value) => fromStorableText(value),
});

/** `jsonb` holding server text, stored in the form above. */
export function storableJsonb<T>(name: string) {
  return customType<{ data: T; driverData: string }>({
    dataType: () => 'jsonb',
    toDriver: (value) => JSON.stringify(toStorableJson(value)),
    // Both drivers hand jsonb over parsed. (drizzle's own jsonb parses a string again, so
    // a stored description "true" came back as a boolean: not here.)
    fromDriver: (value: unknown) => fromStorableJson(value as T),
  })(name);
}
