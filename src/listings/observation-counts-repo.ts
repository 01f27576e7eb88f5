import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { observationCounts, observations } from '../db/schema.js';

/** Upper bounds of the probe duration buckets, in milliseconds (observations.duration_ms). */
export const PROBE_BUCKETS_MS = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000];

type Trigger = (typeof observations.trigger.enumValues)[number];
type Outcome = (typeof observations.outcome.enumValues)[number];

export interface CountedAttempt {
  trigger: Trigger;
  outcome: Outcome;
  durationMs: number;
}

/** The bucket of a duration: the first bound at or above it; PROBE_BUCKETS_MS.length past the last. */
export function durationBucket(ms: number): number {
  const index = PROBE_BUCKETS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? PROBE_BUCKETS_MS.length : index;
}

/**
 * Adds attempts to observation_counts, one statement. Keys are summed first (one
 * INSERT … ON CONFLICT may not touch a row twice) and written in a fixed order, so two
 * workers bumping the same rows wait for each other instead of deadlocking. Callers inside
 * a transaction run it last: the rows stay locked until commit.
 */
export async function countAttempts(
  db: Database,
  attempts: readonly CountedAttempt[],
): Promise<void> {
  if (attempts.length === 0) return;
  const sums = new Map<string, { key: [Trigger, Outcome, number]; count: number; sumMs: number }>();
  for (const attempt of attempts) {
    const bucket = durationBucket(attempt.durationMs);
    const id = `${attempt.trigger}/${attempt.outcome}/${String(bucket).padStart(2, '0')}`;
    const sum = sums.get(id) ?? {
      key: [attempt.trigger, attempt.outcome, bucket],
      count: 0,
      sumMs: 0,
    };
    sum.count += 1;
    sum.sumMs += Math.max(0, Math.round(attempt.durationMs));
    sums.set(id, sum);
  }
  const rows = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { key, count, sumMs }]) => ({
      trigger: key[0],
      outcome: key[1],
      bucket: key[2],
      count,
      sumMs,
    }));
  await db
    .insert(observationCounts)
    .values(rows)
    .onConflictDoUpdate({
      target: [observationCounts.trigger, observationCounts.outcome, observationCounts.bucket],
      set: {
        count: sql`${observationCounts.count} + excluded.count`,
        sumMs: sql`${observationCounts.sumMs} + excluded.sum_ms`,
      },
    });
}

export type ObservationCountRow = typeof observationCounts.$inferSelect;

/** Every counter: at most triggers × outcomes × buckets rows, whatever the history holds. */
export function readObservationCounts(db: Database): Promise<ObservationCountRow[]> {
  return db.select().from(observationCounts);
}

/**
 * A value that moves whenever an observation is recorded (the console's live updates poll
 * it; see src/console/live-feed.ts): the attempts counted so far, read from a few rows.
 */
export const observationsVersion = sql<string>`(select coalesce(sum(${observationCounts.count}), 0)::text from ${observationCounts})`;
