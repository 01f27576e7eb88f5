import type { CanonicalListing } from '../listings/canonical.js';
import { baseSeverity } from './catalogue.js';
import type { Draft } from './compare-tool.js';

/** A listing of the same server taken as another client identity (`NAME/VERSION`). */
export interface IdentityListing {
  identity: string;
  listing: CanonicalListing;
}

/** The identity mcp-drift lists as; its listing is the one recorded (docs/design.md §4). */
export const MAIN_IDENTITY = 'mcp-drift';

const SURFACE_NAMES = {
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resource templates',
  instructions: 'instructions',
} as const;

/**
 * What differs between the main listing and another identity's: tools missing, added or
 * changed by name, and the other surfaces that differ. Empty when the listings are equal.
 */
export function listingDifferences(main: CanonicalListing, other: CanonicalListing): string[] {
  if (main.hash === other.hash) return [];
  const missing: string[] = [];
  const added: string[] = [];
  const changed: string[] = [];
  for (const [name, hash] of Object.entries(main.toolHashes)) {
    const theirs = other.toolHashes[name];
    if (theirs === undefined) missing.push(name);
    else if (theirs !== hash) changed.push(name);
  }
  for (const name of Object.keys(other.toolHashes)) {
    if (main.toolHashes[name] === undefined) added.push(name);
  }
  const parts: string[] = [];
  const list = (names: string[]) =>
    names
      .sort()
      .map((name) => JSON.stringify(name))
      .join(', ');
  if (missing.length > 0) parts.push(`tools missing: ${list(missing)}`);
  if (added.length > 0) parts.push(`tools added: ${list(added)}`);
  if (changed.length > 0) parts.push(`tools changed: ${list(changed)}`);
  for (const [key, label] of Object.entries(SURFACE_NAMES)) {
    const surface = key as keyof typeof SURFACE_NAMES;
    if (main.surfaceHashes[surface] !== other.surfaceHashes[surface]) {
      parts.push(`${label} differ`);
    }
  }
  return parts;
}

/**
 * One client_dependent_listing draft when any identity's listing differs from the main
 * one: a server that shows a scanner one listing and a mainstream host another defeats
 * every review of what it offers. `after` holds, per differing identity, what differed.
 */
export function clientDependenceDraft(
  main: CanonicalListing,
  others: readonly IdentityListing[],
): Draft | null {
  const differing: Record<string, string[]> = {};
  for (const { identity, listing } of others) {
    const parts = listingDifferences(main, listing);
    if (parts.length > 0) differing[identity] = parts;
  }
  const identities = Object.keys(differing);
  if (identities.length === 0) return null;
  const described = identities
    .map((identity) => `as ${JSON.stringify(identity)}: ${differing[identity]!.join('; ')}`)
    .join(' | ');
  return {
    kind: 'client_dependent_listing',
    base: baseSeverity('client_dependent_listing'),
    before: MAIN_IDENTITY,
    after: differing,
    wording: {
      summary: `The listing depends on the client identity asking (compared with ${MAIN_IDENTITY}) — ${described}`,
      effect:
        'hosts that identify otherwise are offered something other than what was reviewed, so a review as one client says nothing of what another is shown',
    },
  };
}
