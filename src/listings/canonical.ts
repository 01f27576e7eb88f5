import { createHash, hash } from 'node:crypto';
import { DriftError } from '../errors.js';
import { CanonicalWriter } from './canonical-writer.js';

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

/** The writer calls borrow, so that a call does not allocate one of its own. */
let idleWriter: CanonicalWriter | null = new CanonicalWriter();

/** What the idle writer may keep between calls (a listing is streamed in smaller pieces). */
const KEPT_WRITER_BYTES = 1 << 18;

function withWriter<T>(write: (writer: CanonicalWriter) => T): T {
  // Only a getter inside the value being written could re-enter: it gets a writer of its own.
  const writer = idleWriter ?? new CanonicalWriter();
  idleWriter = null;
  try {
    return write(writer);
  } finally {
    writer.shrink(KEPT_WRITER_BYTES);
    idleWriter = writer;
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byName(a: RawTool, b: RawTool): number {
  return compareCodeUnits(a.name, b.name);
}

function isSortedByName(tools: readonly RawTool[]): boolean {
  for (let i = 1; i < tools.length; i++) if (!(tools[i - 1]!.name < tools[i]!.name)) return false;
  return true;
}

/** Each tool's hash in the order of `tools`, for the listings canonicalListing made. */
const hashesInOrder = new WeakMap<CanonicalListing, ReadonlyArray<string | undefined>>();

/**
 * A listing's tools in name order, with each tool's hash at the same index: what a diff
 * walks. Free for a listing canonicalListing made (comparing names is slow once they have
 * been used as property keys, and looking hashes up by name slower still); a listing
 * assembled elsewhere is checked, and sorted if need be.
 */
export function toolsInNameOrder(listing: CanonicalListing): {
  tools: readonly RawTool[];
  hashes: ReadonlyArray<string | undefined>;
} {
  const known = hashesInOrder.get(listing);
  if (known !== undefined) return { tools: listing.tools, hashes: known };
  const tools = isSortedByName(listing.tools) ? listing.tools : [...listing.tools].sort(byName);
  return { tools, hashes: tools.map((tool) => listing.toolHashes[tool.name]) };
}

/**
 * RFC 8785 (JCS) serialization of a JSON value: object keys sorted by UTF-16 code units,
 * primitives written as JSON.stringify writes them (see CanonicalWriter for the details and
 * the one deliberate deviation, lone surrogates). Throws DriftError INVALID_INPUT for values
 * JSON has no form for (NaN, functions...).
 */
export function canonicalize(value: unknown): string {
  return withWriter((writer) => {
    writer.value(value);
    return writer.text();
  });
}

/** A tool's canonical form: `annotations: {}` says nothing, so it is the same as no key. */
export function canonicalTool(tool: RawTool): string {
  return withWriter((writer) => {
    writer.tool(tool);
    return writer.text();
  });
}

/** Canonical bytes are hashed in pieces of about this size, so that the buffer stays small. */
const HASH_CHUNK = 1 << 16;

/**
 * The canonical form and hashes of a listing (docs/design.md §2). Tool names must be unique (see
 * validateTools), and the tools must not be changed afterwards.
 *
 * Each tool is written as UTF-8 into a small buffer, hashed where it lies, and fed to the
 * listing hash piece by piece; the whole canonical text is only built when `canonical` is
 * first read: most observations only need the hash, and holding megabytes of text per
 * listing is what made this slow (see bench/diff.bench.ts).
 */
export function canonicalListing(tools: readonly RawTool[]): CanonicalListing {
  const sorted = [...tools].sort(byName);
  const hashes = new Array<string>(sorted.length);
  const listingHash = withWriter((writer) => {
    const whole = createHash('sha256');
    writer.byte(0x5b);
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0) writer.byte(0x2c);
      const start = writer.length;
      writer.tool(sorted[i]!);
      hashes[i] = hash('sha256', writer.bytes(start), 'hex');
      if (writer.length >= HASH_CHUNK) {
        whole.update(writer.bytes());
        writer.clear();
      }
    }
    writer.byte(0x5d);
    whole.update(writer.bytes());
    return whole.digest('hex');
  });
  // fromEntries defines own properties, so a tool named "__proto__" is stored, not applied.
  const toolHashes = Object.fromEntries(sorted.map((tool, i) => [tool.name, hashes[i]!]));

  let canonical: string | undefined;
  const listing: CanonicalListing = {
    get canonical(): string {
      if (canonical === undefined) {
        const writer = new CanonicalWriter(HASH_CHUNK);
        writer.byte(0x5b);
        for (let i = 0; i < sorted.length; i++) {
          if (i > 0) writer.byte(0x2c);
          writer.tool(sorted[i]!);
        }
        writer.byte(0x5d);
        if (hash('sha256', writer.bytes(), 'hex') !== listingHash) {
          throw new DriftError('INTERNAL', 'a listing was changed after it was canonicalized');
        }
        canonical = writer.text();
      }
      return canonical;
    },
    hash: listingHash,
    toolHashes,
    tools: sorted,
  };
  hashesInOrder.set(listing, hashes);
  return listing;
}
