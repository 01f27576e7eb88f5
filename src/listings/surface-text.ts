import type { Surface, SurfaceSummaries } from '../vocabulary/surfaces.js';

/** What each surface is called in a sentence ("resource templates", not `resourceTemplates`). */
export const SURFACE_LABEL: Readonly<Record<Surface, string>> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resource templates',
  instructions: 'instructions',
};

const ITEM_NOUNS: ReadonlyArray<[Exclude<Surface, 'instructions'>, string]> = [
  ['tools', 'tool'],
  ['prompts', 'prompt'],
  ['resources', 'resource'],
  ['resourceTemplates', 'resource template'],
];

/**
 * "4 tools, 1 prompt, 0 resources, instructions": each surface the listing holds, with its
 * count; an absent surface is left out (absent is not empty: docs/design.md §2).
 */
export function surfaceCountsText(surfaces: SurfaceSummaries): string {
  const parts: string[] = [];
  for (const [surface, noun] of ITEM_NOUNS) {
    const count = surfaces[surface]?.count;
    if (count === null || count === undefined) continue;
    parts.push(`${count} ${noun}${count === 1 ? '' : 's'}`);
  }
  if (surfaces.instructions !== null) parts.push('instructions');
  return parts.join(', ');
}

/** "tools, instructions": the surfaces a change moved, in their usual order. */
export function movedSurfacesText(surfaces: readonly Surface[]): string {
  return surfaces.map((surface) => SURFACE_LABEL[surface]).join(', ');
}
