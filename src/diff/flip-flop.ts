import { DriftError } from '../errors.js';
import type { RawTool } from '../listings/canonical.js';
import { postureKey, readPosture } from './hints.js';

export const FLIP_FLOP_WINDOW_MS = 24 * 60 * 60 * 1000;
export const FLIP_FLOP_THRESHOLD = 3;

export interface TimedListing {
  /** Milliseconds since the epoch. */
  at: number;
  byName: ReadonlyMap<string, RawTool>;
}

export function parseTime(iso: string, what: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) {
    throw new DriftError(
      'INVALID_INPUT',
      `${what} is not an ISO 8601 time: ${JSON.stringify(iso)}`,
    );
  }
  return ms;
}

/**
 * How many times each named tool's effective posture changed within the 24 h before `now`.
 * `timeline` is oldest first and ends with the new listing at `now`. A change counts when
 * the observation that shows the new posture falls inside the window; observations where
 * the tool is missing are skipped.
 */
export function postureChangeCounts(
  names: readonly string[],
  timeline: readonly TimedListing[],
  now: number,
): Map<string, number> {
  const windowStart = now - FLIP_FLOP_WINDOW_MS;
  const counts = new Map<string, number>();
  for (const name of names) {
    let previous: string | undefined;
    let changes = 0;
    for (const listing of timeline) {
      const tool = listing.byName.get(name);
      if (tool === undefined) continue;
      const key = postureKey(readPosture(tool));
      if (
        previous !== undefined &&
        key !== previous &&
        listing.at >= windowStart &&
        listing.at <= now
      ) {
        changes++;
      }
      previous = key;
    }
    counts.set(name, changes);
  }
  return counts;
}
