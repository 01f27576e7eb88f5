import { DriftError } from '../errors.js';

const HEX = '0123456789abcdef';

/** The byte that follows a backslash for the control characters with a short escape. */
const SHORT_ESCAPES: ReadonlyMap<number, number> = new Map([
  [0x08, 0x62], // \b
  [0x09, 0x74], // \t
  [0x0a, 0x6e], // \n
  [0x0c, 0x66], // \f
  [0x0d, 0x72], // \r
]);

/** Code-unit order for the few keys of one object: insertion sort beats Array#sort there. */
function sortKeys(keys: string[]): void {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    if (keys[j]! <= key) continue; // servers often send keys in order already
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Writes RFC 8785 (JCS) text as UTF-8 straight into a growing buffer: no sorted copies of
 * the objects, no intermediate strings, and the bytes can be hashed where they lie.
 *
 * It writes exactly what `JSON.stringify` would write for a copy of the value with every
 * object's keys in UTF-16 code-unit order: numbers as Number::toString (-0 → 0, 1e21 →
 * 1e+21); strings escaping only `"`, `\` and C0 controls (short forms where they exist,
 * else lowercase \u00xx); an undefined member is no member and an undefined array item is
 * null. The one deliberate deviation from the RFC, kept from JSON.stringify: a lone
 * surrogate is written as its \udxxx escape instead of failing, because a hostile listing
 * must still get a stable identity. Values JSON has no form for (NaN, functions, bigints...)
 * throw DriftError INVALID_INPUT.
 */
export class CanonicalWriter {
  private buffer: Buffer;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 1024) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** The bytes from `start` on; a view that the next write may invalidate. */
  bytes(start = 0): Buffer {
    return this.buffer.subarray(start, this.length);
  }

  text(): string {
    return this.buffer.toString('utf8', 0, this.length);
  }

  clear(): void {
    this.length = 0;
  }

  /**
   * Drops the buffer when it grew past `limit` bytes, so that one huge listing does not
   * keep its size for the life of the process.
   */
  shrink(limit: number): void {
    this.length = 0;
    if (this.buffer.length > limit) this.buffer = Buffer.allocUnsafe(limit);
  }

  byte(value: number): void {
    if (this.length === this.buffer.length) this.grow(1);
    this.buffer[this.length++] = value;
  }

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.string(value);
        return;
      case 'number':
        if (!Number.isFinite(value)) {
          throw new DriftError('INVALID_INPUT', `${value} cannot be represented in JSON`);
        }
        this.ascii(String(value));
        return;
      case 'boolean':
        this.ascii(value ? 'true' : 'false');
        return;
      case 'object':
        if (value === null) this.ascii('null');
        else if (Array.isArray(value)) this.array(value);
        else this.object(value as Record<string, unknown>, Object.keys(value), false);
        return;
      default:
        throw new DriftError('INVALID_INPUT', `a ${typeof value} cannot be represented in JSON`);
    }
  }

  /** A tool: `annotations: {}` says nothing, so it is written as no key. */
  tool(tool: Record<string, unknown>): void {
    this.object(tool, Object.keys(tool), true);
  }

  private array(items: readonly unknown[]): void {
    this.byte(0x5b);
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.byte(0x2c);
      const item = items[i];
      if (item === undefined) this.ascii('null');
      else this.value(item);
    }
    this.byte(0x5d);
  }

  private object(record: Record<string, unknown>, keys: string[], isTool: boolean): void {
    // JavaScript enumerates integer-like keys first, in numeric order; sorting puts them
    // where RFC 8785 wants them, among the others by code units.
    if (keys.length < 16) sortKeys(keys);
    else keys.sort();
    this.byte(0x7b);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = record[key];
      if (item === undefined) continue; // as JSON.stringify: an undefined member is no member
      let itemKeys: string[] | undefined;
      if (isTool && key === 'annotations' && isPlainObject(item)) {
        itemKeys = Object.keys(item);
        if (itemKeys.length === 0) continue;
      }
      if (!first) this.byte(0x2c);
      first = false;
      this.string(key);
      this.byte(0x3a);
      if (itemKeys === undefined) this.value(item);
      else this.object(item as Record<string, unknown>, itemKeys, false);
    }
    this.byte(0x7d);
  }

  /** Text known to be ASCII without anything to escape (number forms, literals). */
  private ascii(text: string): void {
    const n = text.length;
    if (this.length + n > this.buffer.length) this.grow(n);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) buffer[at++] = text.charCodeAt(i);
    this.length = at;
  }

  private string(text: string): void {
    const n = text.length;
    // Worst case per UTF-16 unit: six bytes (\u001f); UTF-8 never needs more than three.
    if (this.length + 6 * n + 2 > this.buffer.length) this.grow(6 * n + 2);
    const buffer = this.buffer;
    let at = this.length;
    buffer[at++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
          buffer[at++] = c;
        } else {
          buffer[at++] = 0x5c;
          const short = c === 0x22 || c === 0x5c ? c : SHORT_ESCAPES.get(c);
          if (short !== undefined) {
            buffer[at++] = short;
          } else {
            buffer[at++] = 0x75;
            buffer[at++] = 0x30;
            buffer[at++] = 0x30;
            buffer[at++] = HEX.charCodeAt(c >> 4);
            buffer[at++] = HEX.charCodeAt(c & 15);
          }
        }
      } else if (c < 0x800) {
        buffer[at++] = 0xc0 | (c >> 6);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buffer[at++] = 0xe0 | (c >> 12);
        buffer[at++] = 0x80 | ((c >> 6) & 0x3f);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buffer[at++] = 0xf0 | (point >> 18);
          buffer[at++] = 0x80 | ((point >> 12) & 0x3f);
          buffer[at++] = 0x80 | ((point >> 6) & 0x3f);
          buffer[at++] = 0x80 | (point & 0x3f);
          i++;
        } else {
          buffer[at++] = 0x5c;
          buffer[at++] = 0x75;
          buffer[at++] = HEX.charCodeAt(c >> 12);
          buffer[at++] = HEX.charCodeAt((c >> 8) & 15);
          buffer[at++] = HEX.charCodeAt((c >> 4) & 15);
          buffer[at++] = HEX.charCodeAt(c & 15);
        }
      }
    }
    buffer[at++] = 0x22;
    this.length = at;
  }

  private grow(needed: number): void {
    let size = this.buffer.length * 2;
    while (size < this.length + needed) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
