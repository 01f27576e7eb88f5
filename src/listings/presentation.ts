import { DriftError } from '../errors.js';
import { isObject } from '../is-object.js';
import {
  ITEM_SURFACES,
  SURFACES,
  type ItemSurface,
  type Surface,
  type SurfaceSummaries,
  type SurfaceSummary,
} from '../vocabulary/surfaces.js';
import {
  NO_EXTRAS,
  type CanonicalListing,
  type Extras,
  type RawItem,
  type RawTool,
} from './canonical.js';

export { NO_EXTRAS, hasExtras, type Extras, type RawItem } from './canonical.js';

/** A whole presentation: what `diff`, `lock` and the store read and write. */
export interface Presentation extends Extras {
  tools: RawTool[];
}
import { quote, validateTools } from './validate.js';

/** The key that identifies an item of each surface (unique within the surface). */
export const ITEM_KEY: Readonly<Record<ItemSurface, string>> = {
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

/** What one item of a surface is called in messages and finding subjects. */
export const ITEM_NOUN: Readonly<Record<ItemSurface, string>> = {
  prompts: 'prompt',
  resources: 'resource',
  resourceTemplates: 'resource template',
};

export function itemKey(surface: ItemSurface, item: RawItem): string {
  return item[ITEM_KEY[surface]] as string;
}

/**
 * Checks a surface's items the way validateTools checks tools: objects, each with a
 * non-empty string key (name, uri, uriTemplate), no key twice.
 */
export function validateItems(value: unknown, surface: ItemSurface, what: string): RawItem[] {
  const key = ITEM_KEY[surface];
  const noun = ITEM_NOUN[surface];
  if (!Array.isArray(value)) {
    throw new DriftError('INVALID_INPUT', `${what} must be a JSON array of ${surface}`);
  }
  const seen = new Map<string, number>();
  value.forEach((item: unknown, index) => {
    if (!isObject(item)) {
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: the ${noun} at index ${index} must be an object`,
      );
    }
    const id = item[key];
    if (typeof id !== 'string' || id === '') {
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: the ${noun} at index ${index} needs a non-empty string "${key}"`,
      );
    }
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: two ${surface} have the ${key} ${quote(id)} (at index ${earlier} and ${index}); it must be unique`,
      );
    }
    seen.set(id, index);
  });
  return [...value] as RawItem[];
}

/**
 * A presentation from a document: a bare array of tools, a tools/list result, or the
 * whole presentation (`{"tools":[…],"prompts":[…],"resources":[…],"resourceTemplates":[…],
 * "instructions":"…"}`). A key left out is a surface the server does not offer.
 */
export function presentationFromDocument(doc: unknown, what = 'the document'): Presentation {
  if (Array.isArray(doc)) return { tools: validateTools(doc, what), ...NO_EXTRAS };
  if (!isObject(doc) || !Object.hasOwn(doc, 'tools')) {
    throw new DriftError(
      'INVALID_INPUT',
      `${what} must be a tools/list result ({"tools": [...]}), a presentation ({"tools": [...], "prompts": [...], ...}) or a JSON array of tools`,
    );
  }
  const tools = validateTools(doc['tools'], `"tools" in ${what}`);
  return { tools, ...extrasFromDocument(doc, what) };
}

/** The surfaces besides tools of a presentation document; a key left out is absent. */
export function extrasFromDocument(doc: Record<string, unknown>, what: string): Extras {
  const extras: Extras = { ...NO_EXTRAS };
  for (const surface of ITEM_SURFACES) {
    const value = doc[surface];
    if (value === undefined || value === null) continue;
    extras[surface] = validateItems(value, surface, `"${surface}" in ${what}`);
  }
  const instructions = doc['instructions'];
  if (instructions !== undefined && instructions !== null) {
    if (typeof instructions !== 'string') {
      throw new DriftError('INVALID_INPUT', `"instructions" in ${what} must be a string`);
    }
    extras.instructions = instructions;
  }
  return extras;
}

/**
 * A stored listing body: a JSON array of tools (every listing stored before surfaces, and
 * every tools-only listing since, so that their hashes did not move) or the canonical
 * presentation object.
 */
export function presentationFromBody(body: string): Presentation {
  const doc = JSON.parse(body) as unknown;
  if (Array.isArray(doc)) return { tools: doc as RawTool[], ...NO_EXTRAS };
  const object = doc as Record<string, unknown>;
  return {
    tools: object['tools'] as RawTool[],
    prompts: (object['prompts'] as RawItem[] | undefined) ?? null,
    resources: (object['resources'] as RawItem[] | undefined) ?? null,
    resourceTemplates: (object['resourceTemplates'] as RawItem[] | undefined) ?? null,
    instructions: (object['instructions'] as string | undefined) ?? null,
  };
}

/** The presentation as a document, absent surfaces left out (what `lock` and `--json` write). */
export function presentationDocument(presentation: Presentation): Record<string, unknown> {
  const doc: Record<string, unknown> = { tools: presentation.tools };
  for (const surface of ITEM_SURFACES) {
    const items = presentation[surface];
    if (items !== null) doc[surface] = items;
  }
  if (presentation.instructions !== null) doc['instructions'] = presentation.instructions;
  return doc;
}

export type { SurfaceSummaries, SurfaceSummary } from '../vocabulary/surfaces.js';

/**
 * Each surface's hash and item count (instructions: count null); absent surfaces are null.
 * `tools` is always present.
 */
export function surfaceSummary(listing: CanonicalListing): SurfaceSummaries {
  const at = (surface: Surface, count: number | null): SurfaceSummary => {
    const hash = listing.surfaceHashes[surface];
    return hash === undefined ? null : { hash, count };
  };
  return {
    tools: at('tools', listing.tools.length),
    prompts: at('prompts', listing.extras.prompts?.length ?? null),
    resources: at('resources', listing.extras.resources?.length ?? null),
    resourceTemplates: at('resourceTemplates', listing.extras.resourceTemplates?.length ?? null),
    instructions: at('instructions', null),
  };
}

/**
 * The surfaces whose hash differs between two listings, in SURFACES order: a surface that
 * appeared or went away moved too. Empty without a listing before (a first listing) or after.
 */
export function movedSurfaces(
  before: SurfaceSummaries | null,
  after: SurfaceSummaries | null,
): Surface[] {
  if (before === null || after === null) return [];
  return SURFACES.filter((surface) => before[surface]?.hash !== after[surface]?.hash);
}

/** The surfaces of a tools-only listing, known from its hash and tool count alone. */
export function toolsOnlySurfaces(hash: string, toolCount: number): SurfaceSummaries {
  return {
    tools: { hash, count: toolCount },
    prompts: null,
    resources: null,
    resourceTemplates: null,
    instructions: null,
  };
}
