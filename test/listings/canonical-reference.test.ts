import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalListing,
  canonicalTool,
  canonicalize,
  type RawTool,
} from '../../src/listings/canonical.js';
import { DriftError } from '../../src/errors.js';
import { FIXTURES, loadListing, seededRandom, shuffle, shuffleKeys } from './support.js';

// The spec reference for the fast writer in src/listings/canonical-writer.ts: RFC 8785 as
// the plainest code can say it. Keys sorted by code units (Array#sort's default), every
// primitive written by JSON.stringify, the listing assembled as text and hashed whole.
// The fast path must give the same bytes, hashes and errors for every input.

function reference(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new DriftError('INVALID_INPUT', `${value} cannot be represented in JSON`);
      }
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        return `[${value.map((item: unknown) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
      }
      const record = value as Record<string, unknown>;
      const members = Object.keys(record)
        .sort()
        .filter((key) => record[key] !== undefined)
        .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new DriftError('INVALID_INPUT', `a ${typeof value} cannot be represented in JSON`);
  }
}

function referenceTool(tool: RawTool): string {
  const annotations = tool['annotations'];
  const empty =
    typeof annotations === 'object' &&
    annotations !== null &&
    !Array.isArray(annotations) &&
    Object.keys(annotations).length === 0;
  if (!empty) return reference(tool);
  const { annotations: _dropped, ...rest } = tool;
  return reference(rest);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function referenceListing(tools: readonly RawTool[]) {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const texts = sorted.map(referenceTool);
  const canonical = `[${texts.join(',')}]`;
  return {
    canonical,
    hash: sha256(canonical),
    toolHashes: Object.fromEntries(sorted.map((tool, i) => [tool.name, sha256(texts[i]!)])),
    names: sorted.map((tool) => tool.name),
  };
}

function expectSameListing(tools: readonly RawTool[], label: string): void {
  const expected = referenceListing(tools);
  const listing = canonicalListing(tools);
  expect(listing.hash, label).toBe(expected.hash);
  expect(Object.entries(listing.toolHashes), label).toEqual(Object.entries(expected.toolHashes));
  expect(
    listing.tools.map((tool) => tool.name),
    label,
  ).toEqual(expected.names);
  expect(listing.canonical, label).toBe(expected.canonical);
}

/** Keys that sort differently by code unit, by code point, numerically or by locale. */
const KEYS = [
  '',
  'a',
  'A',
  'b',
  'aa',
  'a\u0000',
  '1',
  '2',
  '10',
  '01',
  '-1',
  '4294967294',
  '4294967295',
  '1.5',
  '__proto__',
  'constructor',
  'name',
  'annotations',
  'é',
  'e\u0301',
  '\u0080',
  '\u00f6',
  '\u20ac',
  '\u2028',
  '\ufb33',
  '\uffff',
  '\ud83d\ude00',
  '\ud800',
  '\udfff',
  '\r',
  '\u001f',
  '"',
  '\\',
  '\u007f',
];

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  0.2 + 0.1,
  1e21,
  1e-7,
  1e20,
  123e-20,
  -5e-324,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  333333333.3333333,
  4.5,
  100,
];

const STRING_PIECES = [
  '',
  'plain text',
  '"',
  '\\',
  '/',
  '\b\f\n\r\t',
  '\u0000',
  '\u0001\u001f',
  '\u007f',
  'é',
  '\u0800',
  '\u2028\u2029',
  '\ufeff',
  '\uffff',
  '\ud83d\ude00',
  '\ud800',
  '\udc00',
  '\udbff\udfff',
  '\ud800\ud800\udc00',
  '\udc00\ud800',
  '😀 emoji',
  'x'.repeat(300),
];

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

function randomString(random: () => number): string {
  let text = '';
  const pieces = Math.floor(random() * 4);
  for (let i = 0; i < pieces; i++) text += pick(STRING_PIECES, random);
  return text;
}

function randomValue(random: () => number, depth: number): unknown {
  const roll = random();
  if (depth <= 0 || roll < 0.45) {
    const leaf = random();
    if (leaf < 0.4) return randomString(random);
    if (leaf < 0.7) return pick(NUMBERS, random);
    if (leaf < 0.8) return true;
    if (leaf < 0.9) return false;
    return null;
  }
  if (roll < 0.7) {
    const length = Math.floor(random() * 5);
    const items: unknown[] = [];
    for (let i = 0; i < length; i++) {
      items.push(random() < 0.05 ? undefined : randomValue(random, depth - 1));
    }
    return items;
  }
  // Sometimes many keys, to take the path for larger objects.
  const size = random() < 0.1 ? 16 + Math.floor(random() * 20) : Math.floor(random() * 6);
  const entries: Array<[string, unknown]> = [];
  for (let i = 0; i < size; i++) {
    const key = random() < 0.7 ? pick(KEYS, random) : randomString(random);
    entries.push([key, random() < 0.05 ? undefined : randomValue(random, depth - 1)]);
  }
  // fromEntries defines own properties, so "__proto__" becomes a key, as in JSON.parse.
  return Object.fromEntries(entries);
}

function randomTools(random: () => number, count: number): RawTool[] {
  const names = new Set<string>();
  while (names.size < count) names.add(`${pick(KEYS, random)}${randomString(random)}${names.size}`);
  return [...names].map((name) => {
    const tool = randomValue(random, 4);
    const base = typeof tool === 'object' && tool !== null && !Array.isArray(tool) ? tool : {};
    const annotations = pick(
      [undefined, {}, { title: 'T' }, null, [], 'x', { readOnlyHint: true }],
      random,
    );
    return {
      ...(annotations === undefined ? {} : { annotations }),
      ...base,
      name,
    } as RawTool;
  });
}

describe('canonical form against the reference implementation', () => {
  it('matches on the real listings, as captured and with shuffled tools and keys', () => {
    const random = seededRandom(11);
    for (const name of FIXTURES) {
      const tools = loadListing(name);
      expectSameListing(tools, name);
      expectSameListing(shuffleKeys(shuffle(tools, random), random), `${name} shuffled`);
      for (const tool of tools) expect(canonicalTool(tool)).toBe(referenceTool(tool));
    }
  });

  it('matches on all the real tools in one listing', () => {
    const tools = FIXTURES.flatMap((name) =>
      loadListing(name).map((tool) => ({ ...tool, name: `${name}/${tool.name}` })),
    );
    expectSameListing(tools, 'all fixtures');
  });

  it('matches on generated values: unicode and integer-like keys, numbers, escapes', () => {
    const random = seededRandom(3);
    const values = Array.from({ length: 3000 }, () => randomValue(random, 5));
    const differing = values.filter((value) => canonicalize(value) !== reference(value));
    expect(differing.slice(0, 3).map((value) => JSON.stringify(value))).toEqual([]);
  });

  it('matches on generated listings', () => {
    const random = seededRandom(5);
    for (let i = 0; i < 40; i++) {
      expectSameListing(randomTools(random, 1 + Math.floor(random() * 60)), `listing ${i}`);
    }
  });

  it('matches on the edge cases one by one', () => {
    const values: unknown[] = [
      {},
      [],
      [{}],
      [[]],
      { a: {}, b: [] },
      [undefined, null],
      { a: undefined },
      { '\ud83d\ude00': 1, '\ufb33': 2, '\uffff': 3 },
      { '10': 1, '9': 2, '': 3, a: { '2': [], '1': {} } },
      [1e21, -0, 0.1, 1e-7, 5e-324],
      ['\ud800', '\udfff\ud800', 'a\ud83d', '\ude00b', '\u0000\u001f\u007f\u0080'],
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i])),
      JSON.parse('{"__proto__": {"b": 1, "a": 2}, "constructor": null}'),
      'x'.repeat(100_000),
      '\u00e9'.repeat(50_000),
      '\ud83d\ude00'.repeat(30_000),
    ];
    for (const value of values) expect(canonicalize(value)).toBe(reference(value));
  });

  it('fails the same way on values JSON has no form for', () => {
    const bad: unknown[] = [
      undefined,
      Number.NaN,
      { b: Number.POSITIVE_INFINITY },
      [1, Number.NEGATIVE_INFINITY],
      { a: { b: () => 1 } },
      [Symbol('s')],
      { z: 1n, a: Number.NaN },
    ];
    for (const value of bad) {
      const expected = (() => {
        try {
          reference(value);
        } catch (error) {
          return error;
        }
        throw new Error('the reference accepted a value it should reject');
      })() as DriftError;
      expect(() => canonicalize(value)).toThrow(DriftError);
      expect(() => canonicalize(value)).toThrow(expected.message);
    }
  });

  it('is not confused by a value that canonicalizes another while it is written', () => {
    const inner = { b: 2, a: 1 };
    const value = {
      z: 1,
      get y() {
        return canonicalize(inner);
      },
      x: [3],
    };
    expect(canonicalize(value)).toBe(reference(value));
  });
});
