import { readFileSync } from 'node:fs';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import { pruneHistory } from '../../src/changes/retention.js';
import { PRUNE_BATCH } from '../../src/listings/listings-repo.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { listings, observations, outages, type ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import type { ProbeResult } from '../../src/mcp/index.js';
import { markDown } from '../../src/watch/outages-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed, unreachable, withHints } from '../support/probe-results.js';
import { insertServer } from '../support/server-rows.js';

/*
 * Acceptance 2 of issue 16: runs last seen more than HISTORY_DAYS ago go, unless a change,
 * a baseline or an open outage refers to them (or they are where a server's history starts
 * or ends); the listing bodies nothing refers to any more go with them, the others stay.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const policy = emailOnlyPolicy([]);
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const HISTORY_DAYS = 400;

const newServer = (name: string): Promise<ServerRow> => insertServer(handle.db, name);

function record(server: ServerRow, result: ProbeResult, daysAgo: number) {
  return recordObservation(handle.db, {
    alerts: policy,
    server,
    result,
    trigger: 'poll',
    startedAt: new Date(NOW - daysAgo * DAY),
  });
}

async function runsOf(server: ServerRow) {
  return handle.db
    .select()
    .from(observations)
    .where(eq(observations.serverId, server.id))
    .orderBy(observations.id);
}

async function storedListings(hashes: string[]): Promise<string[]> {
  const rows = await handle.db
    .select({ hash: listings.hash })
    .from(listings)
    .where(inArray(listings.hash, hashes));
  return rows.map((row) => row.hash).sort();
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`retention (${backend})`, () => {
  it('prunes old runs and listings nothing refers to, and keeps the referenced ones', async () => {
    const server = await newServer('aging');
    // A listing seen 900 days ago (the first: the baseline), then a change to another, two
    // listings that came and went (each a change), and errors, all older than 400 days.
    const a = memory;
    const b = relaxed(memory, 'delete_entities');
    const c = relaxed(memory, 'create_entities');
    const first = await record(server, listed(a), 900);
    await record(server, listed(a), 899);
    await record(server, unreachable('connect ECONNREFUSED'), 800);
    await record(server, listed(a), 799);
    const toB = await record(server, listed(b), 700);
    await record(server, listed(b), 600);
    await record(server, unreachable('timed out'), 500);
    const toC = await record(server, listed(c), 450);
    const backToB = await record(server, listed(b), 10);
    expect(toB.change && toC.change && backToB.change).toBeTruthy();
    // Listing bodies recorded long ago.
    await handle.db
      .update(listings)
      .set({ createdAt: new Date(NOW - 900 * DAY) })
      .where(inArray(listings.hash, [first.listing!.hash, toB.listing!.hash, toC.listing!.hash]));

    // Another server: an old run of a listing referred to by nothing but that run, and an
    // open outage whose error runs are old.
    const gone = await newServer('gone');
    const lone = withHints(memory, 'search_nodes', { destructiveHint: false, readOnlyHint: false });
    await record(gone, listed(a), 700); // first ok run: its history starts here, it stays
    const loneRun = await record(gone, listed(lone), 650);
    await record(gone, listed(a), 640);
    await record(gone, listed(a), 630);
    const errorRun = await record(gone, unreachable('connect ECONNREFUSED'), 600);
    await markDown(handle.db, gone.id, new Date(NOW - 600 * DAY), 'connect ECONNREFUSED');
    await handle.db
      .update(listings)
      .set({ createdAt: new Date(NOW - 900 * DAY) })
      .where(eq(listings.hash, loneRun.listing!.hash));
    const beforeGone = await runsOf(gone);
    // a, lone (a change), a (a change back), error.
    expect(beforeGone.map((run) => run.outcome)).toEqual(['ok', 'ok', 'ok', 'error']);

    const before = await runsOf(server);
    expect(before.map((run) => [run.outcome, run.count])).toEqual([
      ['ok', 2],
      ['error', 1],
      ['ok', 1],
      ['ok', 2],
      ['error', 1],
      ['ok', 1],
      ['ok', 1],
    ]);

    const pruned = await pruneHistory(handle.db, { historyDays: HISTORY_DAYS, now: new Date(NOW) });

    // aging: the first run (history starts there), the change runs and the latest stay;
    // the old errors and the old unchanged run of `a` after the outage go. The baseline is
    // `a` (the first listing): its runs stay.
    const after = await runsOf(server);
    const kept = (ids: number[]) => before.filter((run) => ids.includes(run.id));
    expect(after).toEqual(
      kept([before[0]!.id, before[2]!.id, before[3]!.id, before[5]!.id, before[6]!.id]),
    );
    expect(after.map((run) => run.id)).toContain(toB.observation.id);
    expect(after.map((run) => run.id)).toContain(toC.observation.id);

    // gone: its first run, both change runs and the open outage's error run stay; nothing
    // else was there to prune.
    expect((await runsOf(gone)).map((run) => run.id)).toEqual(beforeGone.map((run) => run.id));
    expect(errorRun.observation.id).toBe(beforeGone[3]!.id);
    expect(pruned.runs).toBe(2);

    // Every listing a change or baseline refers to stays (a, b, c, lone).
    expect(
      await storedListings([
        first.listing!.hash,
        toB.listing!.hash,
        toC.listing!.hash,
        loneRun.listing!.hash,
      ]),
    ).toEqual(
      [first.listing!.hash, toB.listing!.hash, toC.listing!.hash, loneRun.listing!.hash].sort(),
    );

    // Once the outage is over, its error run is still the server's latest: it stays.
    await handle.db
      .update(outages)
      .set({ upAt: new Date(NOW) })
      .where(eq(outages.serverId, gone.id));
    const again = await pruneHistory(handle.db, { historyDays: HISTORY_DAYS, now: new Date(NOW) });
    expect(again).toEqual({ runs: 0, listings: 0 });
    expect((await runsOf(gone)).map((run) => run.id)).toEqual(beforeGone.map((run) => run.id));
  });

  it('prunes in batches, and drops a listing body only once nothing refers to it', async () => {
    const server = await newServer('many');
    const [listingA] = [listed(memory)];
    await record(server, listingA, 800);
    // More old error runs than one batch holds: alternating reasons, each its own run.
    const rows = Array.from({ length: PRUNE_BATCH + 20 }, (_, i) => i);
    for (const i of rows)
      await record(server, unreachable(i % 2 ? 'timed out' : 'refused'), 700 - i * 0.01);
    // An old listing only an old, unreferenced run saw (a run inserted as an old release
    // would have left it: no change points at it).
    const orphanHash = 'f'.repeat(64);
    await handle.db.insert(listings).values({
      hash: orphanHash,
      body: '[]',
      toolHashes: {},
      toolCount: 0,
      byteSize: 2,
      createdAt: new Date(NOW - 800 * DAY),
    });
    const old = new Date(NOW - 690 * DAY);
    await handle.db.insert(observations).values({
      serverId: server.id,
      startedAt: old,
      lastSeenAt: old,
      durationMs: 5,
      trigger: 'poll',
      outcome: 'ok',
      listingHash: orphanHash,
    });
    await record(server, listingA, 1);
    const before = await runsOf(server);
    expect(before).toHaveLength(PRUNE_BATCH + 20 + 3);

    const pruned = await pruneHistory(handle.db, { historyDays: HISTORY_DAYS, now: new Date(NOW) });
    expect(pruned.runs).toBe(PRUNE_BATCH + 20 + 1);
    expect(pruned.listings).toBeGreaterThanOrEqual(1);
    const after = await runsOf(server);
    expect(after.map((run) => run.id)).toEqual([before[0]!.id, before.at(-1)!.id]);
    expect(await storedListings([orphanHash, before[0]!.listingHash!])).toEqual([
      before[0]!.listingHash!,
    ]);
  }, 120_000);
});
