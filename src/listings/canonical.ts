import { createHash, hash } from 'node:crypto';
import { DriftError } from '../errors.js';

/** A tool exactly as the server sent it: every key kept, only `name` is known to exist. */
export type RawTool = Record<string, unknown> & { name: string };

export interface CanonicalListing {
  /**
   * RFC 8785 form of the tools array, sorted by name, `annotations: {}` dropped. Built on
   * first read (it can be megabytes; most callers only need `hash`).
   */
  readonly canonical: string;
  /** sha256 hex of `canonical`: the listing's identity. */
  hash: string;
  /** sha256 hex of each tool's canonical form, by tool name. */
  toolHashes: Record<string, string>;
  /** The tools sorted by code units of their names (the objects that were passed in). */
  tools: RawTool[];
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The reference serializer, one node at a time. canonicalize() uses it when the fast path
 * cannot be exact, and to report values JSON has no form for.
 */
function serialize(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new DriftError('INVALID_INPUT', `${value} cannot be represented in JSON`);
      }
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          out += item === undefined ? 'null' : serialize(item);
        }
        return out + ']';
      }
      const record = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const keys = Object.keys(record).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const item = record[key];
        if (item === undefined) continue; // as JSON.stringify: an undefined member is no member
        if (!first) out += ',';
        first = false;
        out += JSON.stringify(key) + ':' + serialize(item);
      }
      return out + '}';
    }
    default:
      throw new DriftError('INVALID_INPUT', `a ${typeof value} cannot be represented in JSON`);
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** Marks a value the fast path cannot serialize exactly; the caller falls back. */
const FALLBACK = Symbol('fallback');

/** Code-unit order for the few keys of one object: insertion sort beats Array#sort there. */
function sortKeys(keys: string[]): void {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/**
 * A copy with every object's keys inserted in RFC 8785 order, for the native
 * JSON.stringify, which writes keys in insertion order and primitives exactly as JCS does.
 * Two things it cannot reproduce make it give up: integer-like keys (JavaScript objects
 * always enumerate those first, in numeric order) and values JSON has no form for (the
 * slow path then reports them).
 */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object') {
    if (typeof value === 'number') return Number.isFinite(value) ? value : FALLBACK;
    return typeof value === 'string' || typeof value === 'boolean' || value === undefined
      ? value
      : FALLBACK;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i]);
      if (item === FALLBACK) return FALLBACK;
      out[i] = item;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 0) return {};
  const first = keys[0]!.charCodeAt(0);
  if (first >= 48 && first <= 57) return FALLBACK; // integer-like keys enumerate first
  if (keys.length < 16) sortKeys(keys);
  else keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const item = sortedCopy(record[key]);
    if (item === FALLBACK) return FALLBACK;
    out[key] = item;
  }
  return out;
}

/**
 * RFC 8785 (JCS) serialization of a JSON value.
 *
 * ECMAScript's JSON.stringify already writes the primitives as JCS does: numbers with
 * Number::toString (-0 → 0, 1e21 → 1e+21), strings escaping only `"`, `\` and C0 controls
 * (short forms where they exist, else lowercase \u00xx). So the fast path copies the value
 * with sorted keys and lets the native serializer write it. The one deliberate deviation
 * from the RFC: JCS says a lone surrogate must abort, but a hostile listing must still get a
 * stable identity, so it is written as its \udxxx escape, as JSON.stringify does.
 * Throws DriftError INVALID_INPUT for values JSON has no form for (NaN, functions...).
 */
export function canonicalize(value: unknown): string {
  const copy = sortedCopy(value);
  if (copy === FALLBACK || copy === undefined) return serialize(value);
  return JSON.stringify(copy);
}

/** A tool's canonical form: `annotations: {}` says nothing, so it is the same as no key. */
export function canonicalTool(tool: RawTool): string {
  if ('annotations' in tool && isEmptyObject(tool.annotations)) {
    const { annotations: _dropped, ...rest } = tool;
    return canonicalize(rest);
  }
  return canonicalize(tool);
}

/** Canonical text is hashed in pieces of about this many characters. */
const HASH_CHUNK = 1 << 16;

/**
 * The canonical form and hashes of a listing (design §2). Tool names must be unique (see
 * validateTools), and the tools must not be changed afterwards.
 *
 * The listing hash is fed piece by piece while each tool is serialized, and the whole
 * canonical text is only built when `canonical` is first read: most observations only need
 * the hash, and holding megabytes of text per listing is what made this slow (see
 * bench/diff.bench.ts).
 */
export function canonicalListing(tools: readonly RawTool[]): CanonicalListing {
  const sorted = [...tools].sort((a, b) => compareCodeUnits(a.name, b.name));
  const whole = createHash('sha256');
  const hashes: Array<[string, string]> = new Array<[string, string]>(sorted.length);
  let pending = '[';
  for (let i = 0; i < sorted.length; i++) {
    const tool = sorted[i]!;
    const text = canonicalTool(tool);
    hashes[i] = [tool.name, sha256Hex(text)];
    pending += i === 0 ? text : `,${text}`;
    if (pending.length >= HASH_CHUNK) {
      whole.update(pending, 'utf8');
      pending = '';
    }
  }
  whole.update(`${pending}]`, 'utf8');
  const hash = whole.digest('hex');

  let canonical: string | undefined;
  return {
    get canonical(): string {
      if (canonical === undefined) {
        const text = `[${sorted.map(canonicalTool).join(',')}]`;
        if (sha256Hex(text) !== hash) {
          throw new DriftError('INTERNAL', 'a listing was changed after it was canonicalized');
        }
        canonical = text;
      }
      return canonical;
    },
    hash,
    // fromEntries defines own properties, so a tool named "__proto__" is stored, not applied.
    toolHashes: Object.fromEntries(hashes),
    tools: sorted,
  };
}
