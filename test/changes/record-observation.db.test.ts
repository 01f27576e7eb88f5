import { readFileSync } from 'node:fs';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordObservation } from '../../src/changes/record-observation.js';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  baselines,
  changes,
  findings,
  listings,
  observations,
  servers,
  type ServerRow,
} from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import type { ProbeSuccess } from '../../src/mcp/index.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed, unreachable } from '../support/probe-results.js';
import { insertServer } from '../support/server-rows.js';

let database: TestDatabase;
let handle: DatabaseHandle;
const policy = emailOnlyPolicy([]);

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

const newServer = (name: string): Promise<ServerRow> => insertServer(handle.db, name);

/** One poll of `server` that listed `tools`, recorded as the service records it. */
function observe(server: ServerRow, tools: RawTool[], probe: Partial<ProbeSuccess> = {}) {
  return recordObservation(handle.db, {
    alerts: policy,
    server,
    result: listed(tools, probe),
    trigger: 'poll',
    startedAt: new Date(),
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`recording observations (${backend})`, () => {
  it('makes the first listing the baseline and records no change for it', async () => {
    const server = await newServer('first');
    const recorded = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    expect(recorded.change).toBeNull();
    expect(recorded.previousHash).toBeNull();
    const [baseline] = await handle.db
      .select()
      .from(baselines)
      .where(eq(baselines.serverId, server.id));
    expect(baseline).toMatchObject({
      listingHash: recorded.listing!.hash,
      approvedBy: 'first-listing',
    });
    const [era] = await handle.db
      .select({ era: servers.protocolEra })
      .from(servers)
      .where(eq(servers.id, server.id));
    expect(era!.era).toBe('2025');
  });

  it('stores a listing body once however often it is seen, and ignores tool order', async () => {
    const server = await newServer('repeat');
    const first = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    const again = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed([...memory].reverse()),
      trigger: 'poll',
      startedAt: new Date(),
    });
    expect(again.listing!.hash).toBe(first.listing!.hash);
    expect(again.change).toBeNull();
    const bodies = await handle.db
      .select()
      .from(listings)
      .where(eq(listings.hash, first.listing!.hash));
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.toolCount).toBe(memory.length);
  });

  it('records a change with its findings when the listing differs, and keeps the baseline', async () => {
    const server = await newServer('drifting');
    const first = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    const second = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(relaxed(memory, 'delete_entities')),
      trigger: 'poll',
      startedAt: new Date(),
      delivery: { listChangedAdvertised: true, notificationSeen: false },
    });
    expect(second.change).not.toBeNull();
    const change = second.change!.row;
    expect(change).toMatchObject({
      fromHash: first.listing!.hash,
      toHash: second.listing!.hash,
      notificationSeen: false,
    });
    // A relaxation to read-only (critical) inside a silent change is critical still (capped).
    expect(change.severity).toBe('critical');
    expect(change.exposure).toMatchObject({
      oldListing: { hash: first.listing!.hash },
      listChangedAdvertised: true,
    });
    const stored = await handle.db.select().from(findings).where(eq(findings.changeId, change.id));
    expect(stored.map((f) => [f.tool, f.kind, f.field, f.severity]).sort()).toEqual(
      [
        [null, 'silent_change', null, 'high'],
        // listed() reports the same serverInfo.version on both sides.
        [null, 'unversioned_change', null, 'low'],
        ['delete_entities', 'annotation_relaxed', 'readOnlyHint', 'critical'],
        ['delete_entities', 'annotation_contradiction', 'readOnlyHint', 'medium'],
      ].sort(),
    );
    const [baseline] = await handle.db
      .select()
      .from(baselines)
      .where(eq(baselines.serverId, server.id));
    expect(baseline!.listingHash).toBe(first.listing!.hash);
  });

  it('records an error as an error observation, never as tools removed', async () => {
    const server = await newServer('flaky');
    await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    const down = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: unreachable('connect ECONNREFUSED 127.0.0.1:9'),
      trigger: 'poll',
      startedAt: new Date(),
    });
    expect(down.observation).toMatchObject({
      outcome: 'error',
      listingHash: null,
      errorCode: 'REMOTE_UNREACHABLE',
    });
    expect(down.change).toBeNull();
    const back = await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    expect(back.change).toBeNull();
    expect(await handle.db.select().from(changes).where(eq(changes.serverId, server.id))).toEqual(
      [],
    );
  });

  it('records a transition seen by two observers at once exactly once', async () => {
    const server = await newServer('observed-twice');
    await recordObservation(handle.db, {
      alerts: policy,
      server,
      result: listed(memory),
      trigger: 'poll',
      startedAt: new Date(),
    });
    const changed = listed(relaxed(memory, 'create_entities'));
    const results = await Promise.all([
      recordObservation(handle.db, {
        alerts: policy,
        server,
        result: changed,
        trigger: 'poll',
        startedAt: new Date(),
        workerId: 'a',
      }),
      recordObservation(handle.db, {
        alerts: policy,
        server,
        result: changed,
        trigger: 'notification',
        startedAt: new Date(),
        workerId: 'b',
      }),
    ]);
    expect(results.filter((result) => result.change !== null)).toHaveLength(1);
    expect(
      await handle.db.select().from(changes).where(eq(changes.serverId, server.id)),
    ).toHaveLength(1);
  });

  it('folds unchanged attempts into runs, and records a change back to an earlier listing', async () => {
    const server = await newServer('back-and-forth');
    const before = relaxed(memory, 'delete_entities');
    const sequence = [memory, memory, before, before, memory, memory];
    const recorded: Awaited<ReturnType<typeof observe>>[] = [];
    for (const tools of sequence) recorded.push(await observe(server, tools));
    // Unchanged sightings, a change, unchanged, the change back (to a listing stored before).
    expect(recorded.map((r) => r.change !== null)).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(recorded[4]!.change!.row).toMatchObject({
      fromHash: recorded[2]!.listing!.hash,
      toHash: recorded[0]!.listing!.hash,
    });
    const rows = await handle.db
      .select()
      .from(observations)
      .where(eq(observations.serverId, server.id))
      .orderBy(observations.id);
    // Three runs of two: each keeps its first attempt's id, which its change points at.
    expect(rows.map((row) => row.id)).toEqual([0, 2, 4].map((i) => recorded[i]!.observation.id));
    expect(recorded.map((r) => r.observation.id)).toEqual(
      [0, 0, 2, 2, 4, 4].map((i) => recorded[i]!.observation.id),
    );
    expect(recorded[2]!.change!.row.observationId).toBe(rows[1]!.id);
    expect(recorded[4]!.change!.row.observationId).toBe(rows[2]!.id);
    expect(rows.map((row) => row.listingHash)).toEqual(
      [0, 2, 4].map((i) => recorded[i]!.listing!.hash),
    );
    expect(rows.map((row) => row.count)).toEqual([2, 2, 2]);
    expect(rows[0]).toMatchObject({
      outcome: 'ok',
      trigger: 'poll',
      durationMs: 12,
      pages: 1,
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'memory-server', version: '0.6.3' },
      capabilities: { tools: { listChanged: true } },
      errorCode: null,
    });
  });

  it('records observations of many servers at once, changed or not, two of one server among them', async () => {
    const fleet = [];
    for (let i = 0; i < 20; i++) fleet.push(await newServer(`fleet-${i}`));
    for (const server of fleet) await observe(server, memory);
    const changed = relaxed(memory, 'delete_entities');
    // Servers 0–4 change; the others do not; server 5 is observed twice in the same burst.
    const burst = [...fleet.map((server, i) => [server, i < 5 ? changed : memory] as const)];
    burst.push([fleet[5]!, memory]);
    const recorded = await Promise.all(burst.map(([server, tools]) => observe(server, tools)));
    expect(recorded.map((r) => r.change !== null)).toEqual(burst.map((_, i) => i < 5));
    // Server 5's two sightings extend one run.
    expect(new Set(recorded.map((r) => r.observation.id)).size).toBe(burst.length - 1);
    for (const [i, r] of recorded.entries()) {
      expect(r.observation.serverId).toBe(burst[i]![0].id);
      expect(r.observation.listingHash).toBe(r.listing!.hash);
    }
    const ids = fleet.map((server) => server.id);
    const rows = await handle.db
      .select()
      .from(observations)
      .where(inArray(observations.serverId, ids));
    // A run per server, and one more for each change.
    expect(rows).toHaveLength(fleet.length + 5);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(fleet.length + burst.length);
    const recordedChanges = await handle.db
      .select()
      .from(changes)
      .where(inArray(changes.serverId, ids));
    expect(recordedChanges.map((c) => c.serverId).sort()).toEqual(ids.slice(0, 5).sort());
  });

  it('records the others of a burst when one observation cannot be stored', async () => {
    const fleet = [];
    for (let i = 0; i < 6; i++) fleet.push(await newServer(`burst-${i}`));
    for (const server of fleet) await observe(server, memory);
    // A duration beyond Postgres's integer is a data exception: that observation fails, alone.
    const settled = await Promise.allSettled(
      fleet.map((server, i) => observe(server, memory, i === 3 ? { durationMs: 2 ** 31 } : {})),
    );
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const rows = await handle.db
      .select()
      .from(observations)
      .where(
        inArray(
          observations.serverId,
          fleet.map((server) => server.id),
        ),
      );
    expect(rows).toHaveLength(fleet.length);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(fleet.length * 2 - 1);
  });
});
