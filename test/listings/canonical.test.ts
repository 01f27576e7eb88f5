import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalListing,
  canonicalize,
  sha256Hex,
  toolsInNameOrder,
  type CanonicalListing,
} from '../../src/listings/canonical.js';
import { DriftError } from '../../src/errors.js';
import { FIXTURES, loadListing, seededRandom, shuffle, shuffleKeys } from './support.js';

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalize (RFC 8785)', () => {
  it('reproduces the example of RFC 8785 §3.2.2', () => {
    const input = JSON.parse(`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('serializes numbers as ECMAScript does (RFC 8785 appendix B)', () => {
    const vectors: Array<[string, string]> = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, expected] of vectors) {
      expect(canonicalize(fromBits(bits)), bits).toBe(expected);
    }
  });

  it('normalizes number spellings from parsed JSON', () => {
    expect(canonicalize(JSON.parse('[1e21, 0.1, -0, 1E-7, 1.0, 100, 1e20, -0.0]'))).toBe(
      '[1e+21,0.1,0,1e-7,1,100,100000000000000000000,0]',
    );
  });

  it('rejects numbers JSON cannot carry', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => canonicalize({ a: value })).toThrow(DriftError);
    }
    expect(() => canonicalize({ a: 1n })).toThrow(DriftError);
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('escapes only what RFC 8785 requires', () => {
    expect(canonicalize('\b\t\n\f\r"\\/\u0000\u001f\u007f\u2028é')).toBe(
      '"\\b\\t\\n\\f\\r\\"\\\\/\\u0000\\u001f\u007f\u2028é"',
    );
  });

  it('writes a lone surrogate as an escape instead of failing', () => {
    expect(canonicalize('a\ud800b')).toBe('"a\\ud800b"');
  });

  it('orders integer-like keys as strings, at any depth', () => {
    // JavaScript enumerates these first and numerically; RFC 8785 wants code-unit order.
    expect(canonicalize({ b: { '10': 1, '2': 2, a: 3, '': 4 }, '1': true })).toBe(
      '{"1":true,"b":{"":4,"10":1,"2":2,"a":3}}',
    );
    expect(canonicalize([{ x: { '0': 'zero', '-1': 'minus', '01': 'padded' } }])).toBe(
      '[{"x":{"-1":"minus","0":"zero","01":"padded"}}]',
    );
  });

  it('sorts nested keys, keeps array order and drops undefined members', () => {
    expect(canonicalize({ b: [3, { z: 1, a: null }], a: { d: true, c: undefined } })).toBe(
      '{"a":{"d":true},"b":[3,{"a":null,"z":1}]}',
    );
  });
});

describe('canonicalListing', () => {
  it('sorts tools by name and hashes the canonical form', () => {
    const listing = canonicalListing([
      { name: 'b', description: 'B' },
      { name: 'a', inputSchema: { type: 'object' } },
    ]);
    expect(listing.canonical).toBe(
      '[{"inputSchema":{"type":"object"},"name":"a"},{"description":"B","name":"b"}]',
    );
    expect(listing.hash).toBe(createHash('sha256').update(listing.canonical).digest('hex'));
    expect(listing.toolHashes).toEqual({
      a: sha256Hex('{"inputSchema":{"type":"object"},"name":"a"}'),
      b: sha256Hex('{"description":"B","name":"b"}'),
    });
    expect(listing.tools.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('treats an empty annotations object as no annotations', () => {
    const bare = canonicalListing([{ name: 'echo', description: 'x' }]);
    const empty = canonicalListing([{ name: 'echo', description: 'x', annotations: {} }]);
    expect(empty.canonical).toBe('[{"description":"x","name":"echo"}]');
    expect(empty.hash).toBe(bare.hash);
    expect(empty.toolHashes).toEqual(bare.toolHashes);
    const nonEmpty = canonicalListing([{ name: 'echo', annotations: { title: 'T' } }]);
    expect(nonEmpty.canonical).toBe('[{"annotations":{"title":"T"},"name":"echo"}]');
  });

  it('gives every fixture the same hash whatever the tool and key order', () => {
    const random = seededRandom(7);
    for (const name of FIXTURES) {
      const tools = loadListing(name);
      const shuffled = shuffleKeys(shuffle(tools, random), random);
      expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(tools));
      const a = canonicalListing(tools);
      const b = canonicalListing(shuffled);
      expect(b.canonical, name).toBe(a.canonical);
      expect(b.hash, name).toBe(a.hash);
      expect(b.hash, name).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.keys(b.toolHashes).sort()).toEqual(tools.map((t) => t.name).sort());
    }
  });

  it('changes the hash when one hint changes', () => {
    const tools = loadListing('filesystem');
    const changed = structuredClone(tools);
    (changed[4]!['annotations'] as Record<string, unknown>)['readOnlyHint'] = true;
    const a = canonicalListing(tools);
    const b = canonicalListing(changed);
    expect(b.hash).not.toBe(a.hash);
    const differing = Object.keys(a.toolHashes).filter((n) => a.toolHashes[n] !== b.toolHashes[n]);
    expect(differing).toEqual([changed[4]!.name]);
  });

  it('builds the canonical text on first read and notices tools changed since hashing', () => {
    const tools = loadListing('hello');
    const listing = canonicalListing(tools);
    expect(sha256Hex(listing.canonical)).toBe(listing.hash);
    expect(listing.canonical).toBe(listing.canonical);
    const mutated = canonicalListing(loadListing('hello'));
    mutated.tools[0]!['description'] = 'changed afterwards';
    expect(() => mutated.canonical).toThrow(/changed after it was canonicalized/);
  });

  it('stores a tool named __proto__ as data', () => {
    const listing = canonicalListing([{ name: '__proto__' }, { name: 'constructor' }]);
    expect(Object.keys(listing.toolHashes)).toEqual(['__proto__', 'constructor']);
    expect(listing.toolHashes['__proto__']).toBe(sha256Hex('{"name":"__proto__"}'));
    expect(Object.getPrototypeOf(listing.toolHashes)).toBe(Object.prototype);
  });

  it('gives each tool with its hash in name order, for its own listings and others', () => {
    const tools = loadListing('filesystem');
    const listing = canonicalListing(shuffle(tools, seededRandom(2)));
    const own = toolsInNameOrder(listing);
    expect(own.tools).toBe(listing.tools);
    expect(own.hashes).toEqual(listing.tools.map((tool) => listing.toolHashes[tool.name]));

    // Assembled elsewhere (say, from stored rows): checked and sorted, hashes looked up.
    const assembled: CanonicalListing = {
      canonical: listing.canonical,
      hash: listing.hash,
      toolHashes: { ...listing.toolHashes },
      tools: [...listing.tools].reverse(),
      extras: listing.extras,
      surfaceHashes: listing.surfaceHashes,
    };
    const other = toolsInNameOrder(assembled);
    expect(other.tools).toEqual(listing.tools);
    expect(other.hashes).toEqual(own.hashes);
  });
});
