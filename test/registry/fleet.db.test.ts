import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { servers, type ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { filterFleet, fleetView } from '../../src/read-models/fleet.js';
import { noteConfigProblem } from '../../src/watch/config-problems-repo.js';
import { noteHeldSession } from '../../src/watch/held-sessions-repo.js';
import { markDown } from '../../src/watch/outages-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';

/* The fleet's states as the console shows them, from rows the service writes. */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
let database: TestDatabase;
let handle: DatabaseHandle;

async function newServer(name: string, extra: Partial<ServerRow> = {}): Promise<ServerRow> {
  const [row] = await handle.db
    .insert(servers)
    .values({ name, transport: 'http', url: `http://127.0.0.1:9/${name}`, ...extra })
    .returning();
  return row!;
}

const observe = (server: ServerRow, tools: RawTool[]) =>
  recordObservation(handle.db, {
    alerts: emailOnlyPolicy(['ops@example.org']),
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
  });

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  const held = await newServer('held');
  const first = await observe(held, memory);
  await noteHeldSession(handle.db, {
    serverId: held.id,
    workerId: 'worker-1',
    listingHash: first.listing!.hash,
    listedAt: new Date(),
    lastNotificationAt: null,
    listChangedAdvertised: true,
  });
  await observe(held, relaxed(memory, 'delete_entities'));
  const down = await newServer('down');
  await observe(down, memory);
  // A reason quotes the server, NUL and all (stored escaped: src/db/storable.ts).
  await markDown(handle.db, down.id, new Date('2026-11-30T08:00:00Z'), 'refused\u0000 by it');
  await newServer('new');
  await newServer('off', { enabled: false });
  // An outage and a session row from before serve found its registration unworkable.
  const stuck = await newServer('stuck');
  await observe(stuck, memory);
  await markDown(handle.db, stuck.id, new Date('2026-11-30T07:00:00Z'), 'refused');
  await noteHeldSession(handle.db, {
    serverId: stuck.id,
    workerId: 'worker-1',
    listingHash: null,
    listedAt: new Date(),
    lastNotificationAt: null,
    listChangedAdvertised: null,
  });
  await noteConfigProblem(handle.db, {
    serverId: stuck.id,
    problem: 'environment variable not set: TOKEN (in header A of server "stuck")',
    workerId: 'worker-1',
    at: new Date('2026-11-30T09:00:00Z'),
  });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`the fleet (${backend})`, () => {
  it('tells each server’s state, latest listing and change, baseline drift and open alerts', async () => {
    const fleet = await fleetView(handle.db);
    const byName = Object.fromEntries(fleet.servers.map((server) => [server.name, server]));
    expect(fleet.servers.map((server) => server.name)).toEqual([
      'down',
      'held',
      'new',
      'off',
      'stuck',
    ]);
    expect(byName['held']).toMatchObject({
      health: 'up',
      watch: 'held',
      held: { lastNotificationAt: null },
      latestChange: { severity: 'critical' },
      drifted: true,
      unacknowledgedAlerts: 1,
    });
    expect(byName['down']).toMatchObject({
      health: 'down',
      down: { since: '2026-11-30T08:00:00.000Z', reason: 'refused\u0000 by it' },
      watch: 'probing',
      latestChange: null,
      drifted: false,
      unacknowledgedAlerts: 0,
    });
    expect(byName['new']).toMatchObject({ health: 'unknown', lastListing: null, baseline: null });
    expect(byName['off']).toMatchObject({ watch: 'disabled', enabled: false });
    // Its problem comes before its outage, and it holds nothing.
    expect(byName['stuck']).toMatchObject({
      state: 'misconfigured',
      watch: 'misconfigured',
      health: 'down',
      held: null,
      configProblem: {
        since: '2026-11-30T09:00:00.000Z',
        problem: 'environment variable not set: TOKEN (in header A of server "stuck")',
      },
    });
    expect(byName['down']).toMatchObject({ state: 'down', configProblem: null });
    expect(fleet.changeCounts['24h'].critical).toBe(1);
    expect(fleet.changeCounts['7d'].critical).toBe(1);
    expect(fleet.changeCounts['24h'].high).toBe(0);
  });

  it('filters and sorts what it read', async () => {
    const { servers: all } = await fleetView(handle.db);
    expect(filterFleet(all, { health: 'down' }).map((s) => s.name)).toEqual(['down', 'stuck']);
    expect(filterFleet(all, { watch: 'misconfigured' }).map((s) => s.name)).toEqual(['stuck']);
    expect(filterFleet(all, { drifted: true }).map((s) => s.name)).toEqual(['held']);
    expect(filterFleet(all, { text: 'O' }).map((s) => s.name)).toEqual(['down', 'off']);
    expect(filterFleet(all, { minSeverity: 'high' }).map((s) => s.name)).toEqual(['held']);
    expect(filterFleet(all, { sort: 'health' }).map((s) => s.name)).toEqual([
      'down',
      'stuck',
      'new',
      'off',
      'held',
    ]);
    expect(filterFleet(all, { sort: 'change' })[0]!.name).toBe('held');
  });
});
