/**
 * What a server presents to a host and its model (docs/design.md §2): the tools, and the
 * other surfaces a listing holds when the server advertises them.
 */
export const SURFACES = [
  'tools',
  'prompts',
  'resources',
  'resourceTemplates',
  'instructions',
] as const;
export type Surface = (typeof SURFACES)[number];

/** The surfaces that are lists of items, besides tools. */
export const ITEM_SURFACES = ['prompts', 'resources', 'resourceTemplates'] as const;
export type ItemSurface = (typeof ITEM_SURFACES)[number];

/** One surface of a listing: its hash and item count (instructions: null); null when absent. */
export type SurfaceSummary = { hash: string; count: number | null } | null;

/** Every surface of a listing; `tools` is always present. */
export type SurfaceSummaries = Record<Surface, SurfaceSummary>;
