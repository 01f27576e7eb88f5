import { createHash, hash } from 'node:crypto';
import { DriftError } from '../errors.js';
import { CanonicalWriter } from './canonical-writer.js';

/** A tool exactly as the server sent it: every key kept, only `name` is known to exist. */
export type RawTool = Record<string, unknown> & { name: string };

/** A prompt, resource or resource template exactly as the server sent it. */
export type RawItem = Record<string, unknown>;

/**
 * Everything but the tools of a server's presentation (docs/design.md §2). `null` is a
 * surface the server does not advertise: absent, which is not the same as empty.
 */
export interface Extras {
  prompts: RawItem[] | null;
  resources: RawItem[] | null;
  resourceTemplates: RawItem[] | null;
  instructions: string | null;
}

export const NO_EXTRAS: Readonly<Extras> = Object.freeze({
  prompts: null,
  resources: null,
  resourceTemplates: null,
  instructions: null,
});

export function hasExtras(extras: Extras): boolean {
  return (
    extras.prompts !== null ||
    extras.resources !== null ||
    extras.resourceTemplates !== null ||
    extras.instructions !== null
  );
}

/** Just the extras of a value that has them (a probe result, a presentation). */
export function extrasOf(value: Extras): Extras {
  return {
    prompts: value.prompts,
    resources: value.resources,
    resourceTemplates: value.resourceTemplates,
    instructions: value.instructions,
  };
}

/** The key that identifies an item of each item surface (unique within it). */
const ITEM_SORT_KEY = {
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
} as const;

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
  /** The other surfaces, items sorted by their key; all absent in a tools-only listing. */
  extras: Extras;
  /**
   * sha256 hex of each present surface's canonical form (docs/design.md §2): a change says
   * which surfaces moved. `tools` is always there.
   */
  surfaceHashes: Partial<Record<'tools' | keyof Extras, string>>;
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
export function canonicalListing(
  tools: readonly RawTool[],
  extras: Extras = NO_EXTRAS,
): CanonicalListing {
  const toolsListing = canonicalTools(tools);
  if (!hasExtras(extras)) return toolsListing;
  return withExtras(toolsListing, extras);
}

/**
 * A presentation with more than tools is canonicalized as the object
 * `{"instructions":…,"prompts":[…],"resourceTemplates":[…],"resources":[…],"tools":[…]}`
 * (absent surfaces left out, items sorted by their key). A tools-only listing keeps the
 * bare array form, so that every listing stored before surfaces keeps its hash.
 */
function withExtras(toolsListing: CanonicalListing, extras: Extras): CanonicalListing {
  const sorted: Extras = { ...NO_EXTRAS, instructions: extras.instructions };
  const parts: Array<[string, string]> = [];
  const surfaceHashes: CanonicalListing['surfaceHashes'] = { tools: toolsListing.hash };
  if (extras.instructions !== null) {
    const text = canonicalize(extras.instructions);
    parts.push(['instructions', text]);
    surfaceHashes.instructions = sha256Hex(text);
  }
  for (const surface of ['prompts', 'resourceTemplates', 'resources'] as const) {
    const items = extras[surface];
    if (items === null) continue;
    const key = ITEM_SORT_KEY[surface];
    const ordered = [...items].sort((a, b) => compareCodeUnits(String(a[key]), String(b[key])));
    sorted[surface] = ordered;
    const text = canonicalize(ordered);
    parts.push([surface, text]);
    surfaceHashes[surface] = sha256Hex(text);
  }
  const canonical = `{${[...parts, ['tools', toolsListing.canonical] as const]
    .map(([key, text]) => `${JSON.stringify(key)}:${text}`)
    .join(',')}}`;
  const listing: CanonicalListing = {
    canonical,
    hash: sha256Hex(canonical),
    toolHashes: toolsListing.toolHashes,
    tools: toolsListing.tools,
    extras: sorted,
    surfaceHashes,
  };
  const known = hashesInOrder.get(toolsListing);
  if (known !== undefined) hashesInOrder.set(listing, known);
  return listing;
}

function canonicalTools(tools: readonly RawTool[]): CanonicalListing {
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
    extras: NO_EXTRAS,
    surfaceHashes: { tools: listingHash },
  };
  hashesInOrder.set(listing, hashes);
  return listing;
}
