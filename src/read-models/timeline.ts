import type { Database } from '../db/client.js';
import type { ChangeSeverity } from '../diff/index.js';
import {
  listingSpans,
  notificationTimes,
  triggersOf,
  type ObservationRow,
} from '../listings/listings-repo.js';
import { outagesSince } from '../watch/outages-repo.js';
import { changesInWindow } from '../changes/changes-repo.js';

/** At most this many of each kind of mark: a server that flaps all week stays drawable. */
const MARKS = 500;

/**
 * What the server page's timeline draws over a window: each listing as a span (from its
 * first to its last observation in a run), each change as a mark (how the observation that
 * saw it was triggered: a re-list after a change notification, or a probe), outages as
 * gaps, and the re-lists that change notifications caused. JSON-ready.
 */
export interface Timeline {
  from: string;
  to: string;
  spans: { hash: string; from: string; to: string; observations: number }[];
  changes: {
    id: number;
    at: string;
    severity: ChangeSeverity;
    trigger: ObservationRow['trigger'] | null;
    notificationSeen: boolean | null;
  }[];
  outages: { from: string; to: string | null; reason: string }[];
  notifications: string[];
  /** Some marks of a kind were left out (only the latest MARKS are kept). */
  truncated: boolean;
}

export async function serverTimeline(
  db: Database,
  serverId: number,
  window: { since: Date; until: Date },
): Promise<Timeline> {
  const options = { since: window.since, limit: MARKS };
  const spans = await listingSpans(db, serverId, options);
  const changes = await changesInWindow(db, serverId, options);
  const outages = await outagesSince(db, serverId, options);
  const notifications = await notificationTimes(db, serverId, options);
  const triggers = await triggersOf(
    db,
    changes.map((change) => change.observationId),
  );
  return {
    from: window.since.toISOString(),
    to: window.until.toISOString(),
    spans: spans.map((span) => ({
      hash: span.hash,
      from: span.from.toISOString(),
      to: span.to.toISOString(),
      observations: span.observations,
    })),
    changes: changes.map((change) => ({
      id: change.id,
      at: change.detectedAt.toISOString(),
      severity: change.severity,
      trigger: triggers.get(change.observationId) ?? null,
      notificationSeen: change.notificationSeen,
    })),
    outages: outages.map((outage) => ({
      from: outage.downAt.toISOString(),
      to: outage.upAt?.toISOString() ?? null,
      reason: outage.reason,
    })),
    notifications: notifications.map((at) => at.toISOString()),
    truncated: [spans, changes, outages, notifications].some((list) => list.length >= MARKS),
  };
}
