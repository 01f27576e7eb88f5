import { decideAlert, type AlertPolicy } from '../alerts/alert-policy.js';
import { enqueueAlert, type QueuedAlert } from '../alerts/alerts-repo.js';
import type { Database } from '../db/client.js';
import type { ChangeRow, ServerRow, SinceBaseline } from '../db/schema.js';
import {
  checkFirstListing,
  diffListings,
  type DeliveryContext,
  type DiffResult,
} from '../diff/index.js';
import { canonicalListing, extrasOf, type CanonicalListing } from '../listings/canonical.js';
import {
  getBaseline,
  insertObservation,
  listingSpan,
  listingsByHash,
  loadListing,
  serverVersionOf,
  setBaseline,
  storeListing,
  type NewObservationRow,
  type ObservationRow,
} from '../listings/listings-repo.js';
import { countAttempts } from '../listings/observation-counts-repo.js';
import { scrubSecrets } from '../log-lines.js';
import type { ProbeResult, ProbeSuccess } from '../mcp/index.js';
import type { IdentityListing } from '../diff/index.js';
import { setProtocolEra } from '../registry/servers-repo.js';
import { SightingBatcher } from './sighting-batcher.js';
import {
  appendChange,
  chainEnd,
  changesSince,
  extendLatestRuns,
  isDuplicateAppend,
  otherServersTools,
} from './changes-repo.js';

export interface ObservationInput {
  server: ServerRow;
  result: ProbeResult;
  trigger: ObservationRow['trigger'];
  startedAt: Date;
  workerId?: string;
  /** From a held session: whether the server advertises and sent change notifications. */
  delivery?: DeliveryContext;
  /** Which changes get an alert in the outbox, written in the change's transaction. */
  alerts: AlertPolicy;
}

export interface RecordedObservation {
  /** The run this attempt extended or started (its id: the run's first attempt's). */
  observation: ObservationRow;
  /** The listing seen; null for an error observation. */
  listing: CanonicalListing | null;
  /** The server's listing before this observation (its previous successful one). */
  previousHash: string | null;
  /**
   * Set when the listing differs from the previous one, or when a server's first listing
   * has content findings (then `row.fromHash` is null); `alert` when it is alerted.
   */
  change: { row: ChangeRow; diff: DiffResult; alert: QueuedAlert | null } | null;
}

/** One batcher per database handle: the observations recorded through it share statements. */
const batchers = new WeakMap<Database, SightingBatcher>();

function sightingsOf(db: Database): SightingBatcher {
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new SightingBatcher(db)));
  return batcher;
}

/** flip_flop counts posture changes within this window (docs/design.md §4). */
const FLIP_FLOP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Stores one attempt to list a server and, when its listing differs from the previous
 * one, the change, its findings and its alert (the outbox), all in one transaction. An
 * attempt with its server's latest outcome extends that run (docs/history.md); another
 * outcome starts a run. The common case, a listing the history already ends at, is one
 * short transaction (extend the run, count the attempt) shared with the other such
 * observations in flight (SightingBatcher). An error
 * observation never touches the listing history: a server that is down has not removed
 * its tools. The first successful listing becomes the baseline until an operator approves
 * another; when its text holds content findings (poison on first sight) it is also a
 * change from no listing, alerted as any other (docs/change-chain.md).
 */
export async function recordObservation(
  db: Database,
  input: ObservationInput,
): Promise<RecordedObservation> {
  const listing = input.result.ok
    ? canonicalListing(input.result.tools, extrasOf(input.result))
    : null;
  if (listing) {
    const observation = await sightingsOf(db).submit(observationValues(input, listing));
    if (observation) {
      await rememberEra(db, input);
      return { observation, listing, previousHash: listing.hash, change: null };
    }
  }
  // A concurrent observer may append the same transition first; then this attempt's
  // transaction is rolled back and redone, and finds that listing as the previous one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const recorded = await recordIn(tx, input, listing);
        // Last in the transaction: the counter rows stay locked until it commits.
        await countAttempts(tx, [observationValues(input, listing)]);
        return recorded;
      });
    } catch (error) {
      if (!isDuplicateAppend(error) || attempt >= 3) throw error;
    }
  }
}

async function recordIn(
  db: Database,
  input: ObservationInput,
  listing: CanonicalListing | null,
): Promise<RecordedObservation> {
  const { server, result } = input;
  // The server's current listing is where its chain of changes ends (or its first listing).
  // Reading it from the chain, and appending after the same link, is what keeps two
  // observers of one transition from both recording it.
  const chain = await chainEnd(db, server.id);
  const previousHash = chain.hash;
  const values = observationValues(input, listing);
  // An error like the last one, or the listing the history ends at after a batched
  // sighting lost a race: the latest run goes on.
  const [extended] = await extendLatestRuns(db, [values]);
  if (extended) {
    await rememberEra(db, input);
    return { observation: extended, listing, previousHash, change: null };
  }
  // The listing the chain ends at is stored already.
  if (listing && listing.hash !== previousHash) await storeListing(db, listing);
  const observation = await insertObservation(db, values);
  await rememberEra(db, input);
  const recorded = { observation, listing, previousHash, change: null };
  if (!listing || !result.ok) return recorded;
  if (previousHash === listing.hash) return recorded;

  const oldHash = previousHash;
  const now = input.startedAt.toISOString();
  const version = result.serverInfo?.version;
  const context = {
    trust: server.trust,
    server: server.name,
    after: {
      firstObserved: now,
      lastObserved: now,
      serverVersion: typeof version === 'string' ? version : null,
    },
    delivery: input.delivery,
    ttlMs: result.ttlMs,
    cacheScope: result.cacheScope,
    clientListings: identityListings(result),
  };
  let diff: DiffResult;
  let sinceBaseline: SinceBaseline | null = null;
  let oldSpan: { firstObserved: string | null; lastObserved: string | null } | null = null;
  if (oldHash === null) {
    await setBaseline(db, server.id, listing.hash, 'first-listing', { onlyIfMissing: true });
    diff = checkFirstListing(listing, {
      ...context,
      otherServerTools: await otherServersTools(db, server.id),
    });
    if (diff.findings.length === 0) return recorded;
  } else {
    const [oldTools, span, oldVersion, history] = [
      await loadListing(db, oldHash),
      await listingSpan(db, server.id, oldHash),
      await serverVersionOf(db, server.id, oldHash),
      await recentHistory(db, server.id, input.startedAt),
    ];
    oldSpan = span;
    diff = diffListings(oldTools, listing, {
      ...context,
      otherServerTools: await otherServersTools(db, server.id),
      before: { ...span, serverVersion: oldVersion },
      history,
      now,
    });
    sinceBaseline = await driftSinceBaselineOf(db, server, oldHash, listing);
  }
  const row = await appendChange(
    db,
    {
      serverId: server.id,
      previousChangeId: chain.lastChangeId,
      fromHash: oldHash,
      toHash: listing.hash,
      observationId: observation.id,
      detectedAt: input.startedAt,
      severity: diff.severity,
      notificationSeen: input.delivery?.notificationSeen ?? null,
      exposure: {
        oldListing: oldHash === null ? null : { hash: oldHash, ...oldSpan },
        notificationSeen: input.delivery?.notificationSeen ?? null,
        listChangedAdvertised: input.delivery?.listChangedAdvertised ?? null,
        ttlMs: result.ttlMs,
        cacheScope: result.cacheScope,
      },
      sinceBaseline,
    },
    diff.findings,
  );
  const decision = decideAlert(input.alerts, server, diff.severity);
  const alert = decision
    ? await enqueueAlert(db, {
        ...decision,
        serverId: server.id,
        changeId: row.id,
        digestSeconds: input.alerts.digestSeconds,
      })
    : null;
  return { ...recorded, change: { row, diff, alert } };
}

/**
 * When the approved baseline is older than the listing before, the drift from it to the new
 * listing graded as one change (docs/design.md §4): small steps can add up to more than the
 * last one. Null when the change starts at the baseline or comes back to it.
 */
async function driftSinceBaselineOf(
  db: Database,
  server: ServerRow,
  oldHash: string,
  listing: CanonicalListing,
): Promise<SinceBaseline | null> {
  const baseline = await getBaseline(db, server.id);
  if (!baseline || baseline.listingHash === oldHash || baseline.listingHash === listing.hash) {
    return null;
  }
  const cumulative = diffListings(await loadListing(db, baseline.listingHash), listing, {
    trust: server.trust,
    server: server.name,
  });
  return {
    baselineHash: baseline.listingHash,
    severity: cumulative.severity,
    findings: cumulative.findings.length,
  };
}

/** The `--also-as` identities that listed successfully, in canonical form. */
function identityListings(result: ProbeSuccess): IdentityListing[] {
  const listings: IdentityListing[] = [];
  for (const { identity, result: theirs } of result.alsoAs ?? []) {
    if (!theirs.ok) continue;
    listings.push({ identity, listing: canonicalListing(theirs.tools, extrasOf(theirs)) });
  }
  return listings;
}

function observationValues(
  input: ObservationInput,
  listing: CanonicalListing | null,
): NewObservationRow {
  const { result } = input;
  const at = input.startedAt;
  return {
    serverId: input.server.id,
    startedAt: at,
    lastSeenAt: at,
    count: 1,
    lastPollAt: input.trigger === 'poll' ? at : null,
    lastNotificationAt: input.trigger === 'notification' ? at : null,
    lastStartupAt: input.trigger === 'startup' ? at : null,
    lastManualAt: input.trigger === 'manual' ? at : null,
    durationMs: result.durationMs,
    trigger: input.trigger,
    outcome: result.ok ? 'ok' : 'error',
    listingHash: listing?.hash ?? null,
    errorCode: result.ok ? null : result.code,
    // Masked before it is stored, not only when logged: `history` prints it, and a server
    // may quote the credentials it was sent (see redactFromLogs).
    errorMessage: result.ok ? null : scrubSecrets(result.reason),
    protocolVersion: result.protocolVersion,
    serverInfo: result.serverInfo as Record<string, unknown> | null,
    capabilities: result.capabilities as Record<string, unknown> | null,
    ttlMs: result.ok ? result.ttlMs : null,
    cacheScope: result.ok ? result.cacheScope : null,
    pages: result.ok ? result.pages : null,
    workerId: input.workerId ?? null,
  };
}

/** Keeps the era a server answered in, so that stdio servers are not spawned twice later. */
async function rememberEra(db: Database, input: ObservationInput): Promise<void> {
  const era = input.result.era;
  if (!era || era === input.server.protocolEra) return;
  await setProtocolEra(db, input.server.id, era);
}

/** The server's listings over the flip_flop window, oldest first. */
async function recentHistory(db: Database, serverId: number, now: Date) {
  const recent = await changesSince(db, serverId, new Date(now.getTime() - FLIP_FLOP_WINDOW_MS));
  if (recent.length === 0) return [];
  // A first-listing change (content findings on first sight) starts from no listing.
  const start = recent[0]!.fromHash;
  const bodies = await listingsByHash(db, [
    ...(start === null ? [] : [start]),
    ...recent.map((change) => change.toHash),
  ]);
  return [
    ...(start === null
      ? []
      : [{ observedAt: recent[0]!.detectedAt.toISOString(), tools: bodies.get(start)! }]),
    ...recent.map((change) => ({
      observedAt: change.detectedAt.toISOString(),
      tools: bodies.get(change.toHash)!,
    })),
  ];
}
