import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { observationCounts, observations, type ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import type { ProbeResult } from '../../src/mcp/index.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed, unreachable } from '../support/probe-results.js';
import { insertServer } from '../support/server-rows.js';

/*
 * Acceptance 1 of issue 16: unchanged observations of a server collapse into one run row;
 * another outcome (an error, another error, another listing) starts a row; `history` shows
 * runs. The probes are recorded by the use case the service calls, in a loop: what is
 * under test is the recording, not the listing.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const policy = emailOnlyPolicy([]);
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const T0 = Date.parse('2026-11-01T07:00:00.000Z');
const FIVE_MINUTES = 5 * 60_000;

const newServer = (name: string): Promise<ServerRow> => insertServer(handle.db, name);

function record(
  server: ServerRow,
  result: ProbeResult,
  at: number,
  trigger: 'poll' | 'notification' | 'manual' = 'poll',
) {
  return recordObservation(handle.db, {
    alerts: policy,
    server,
    result,
    trigger,
    startedAt: new Date(at),
  });
}

async function runsOf(server: ServerRow) {
  return handle.db
    .select()
    .from(observations)
    .where(eq(observations.serverId, server.id))
    .orderBy(observations.id);
}

const cli = async (...args: string[]) => {
  const result = await runCli(args, { env: database.env, cwd: database.dir });
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`observation runs (${backend})`, () => {
  it('leaves one run with count 10,000 after 10,000 unchanged probes', async () => {
    const server = await newServer('steady');
    const result = listed(memory, { durationMs: 70 });
    const before = await handle.db
      .select()
      .from(observationCounts)
      .where(eq(observationCounts.bucket, 1));
    for (let i = 0; i < 10_000; i++) {
      await record(server, result, T0 + i * FIVE_MINUTES, i === 5_000 ? 'manual' : 'poll');
    }
    const runs = await runsOf(server);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      outcome: 'ok',
      count: 10_000,
      trigger: 'poll',
      startedAt: new Date(T0),
      lastSeenAt: new Date(T0 + 9_999 * FIVE_MINUTES),
      lastPollAt: new Date(T0 + 9_999 * FIVE_MINUTES),
      lastManualAt: new Date(T0 + 5_000 * FIVE_MINUTES),
      lastNotificationAt: null,
      lastStartupAt: null,
    });
    // Every attempt was counted for /metrics (70 ms: the 100 ms bucket, index 1).
    const counted = await handle.db
      .select()
      .from(observationCounts)
      .where(eq(observationCounts.bucket, 1));
    const total = (rows: typeof counted) =>
      rows.filter((row) => row.outcome === 'ok').reduce((sum, row) => sum + Number(row.count), 0);
    expect(total(counted) - total(before)).toBe(10_000);
  }, 600_000);

  it('splits runs where the outcome changes: an error, another error, another listing', async () => {
    const server = await newServer('flaky');
    const changed = relaxed(memory, 'delete_entities');
    let at = T0;
    const next = () => (at += FIVE_MINUTES);
    for (let i = 0; i < 3; i++) await record(server, listed(memory), next());
    await record(server, unreachable('connect ECONNREFUSED 127.0.0.1:9'), next());
    for (let i = 0; i < 2; i++) await record(server, listed(memory), next(), 'notification');
    expect((await runsOf(server)).map((run) => [run.outcome, run.count])).toEqual([
      ['ok', 3],
      ['error', 1],
      ['ok', 2],
    ]);

    for (let i = 0; i < 2; i++)
      await record(server, unreachable('connect ECONNREFUSED 127.0.0.1:9'), next());
    await record(server, unreachable('timed out after 30 s'), next());
    const change = await record(server, listed(changed), next());
    await record(server, listed(changed), next());
    const runs = await runsOf(server);
    expect(runs.map((run) => [run.outcome, run.count, run.errorMessage])).toEqual([
      ['ok', 3, null],
      ['error', 1, 'connect ECONNREFUSED 127.0.0.1:9'],
      ['ok', 2, null],
      ['error', 2, 'connect ECONNREFUSED 127.0.0.1:9'],
      ['error', 1, 'timed out after 30 s'],
      ['ok', 2, null],
    ]);
    // The change points at the first attempt of the run of its new listing.
    expect(change.change!.row.observationId).toBe(runs[5]!.id);
    expect(runs[5]!.listingHash).toBe(change.change!.row.toHash);
    expect(runs[2]).toMatchObject({ trigger: 'notification', lastPollAt: null });

    const json = JSON.parse(await cli('history', 'flaky', '--json')) as {
      server: string;
      runs: Record<string, unknown>[];
    };
    expect(json.server).toBe('flaky');
    expect(json.runs.map((run) => [run['outcome'], run['count']])).toEqual([
      ['ok', 2],
      ['error', 1],
      ['error', 2],
      ['ok', 2],
      ['error', 1],
      ['ok', 3],
    ]);
    expect(json.runs[0]).toMatchObject({
      id: runs[5]!.id,
      listingHash: change.change!.row.toHash,
      firstSeenAt: runs[5]!.startedAt.toISOString(),
      lastSeenAt: runs[5]!.lastSeenAt.toISOString(),
      triggers: { poll: runs[5]!.lastSeenAt.toISOString() },
      change: { id: change.change!.row.id, fromHash: runs[0]!.listingHash },
    });
    expect(json.runs[3]).toMatchObject({
      triggers: { notification: runs[2]!.lastSeenAt.toISOString() },
      change: null,
    });

    const text = (await cli('history', 'flaky')).split('\n');
    expect(text[0]).toMatch(
      /^FIRST SEEN\s+LAST SEEN\s+OUTCOME\s+LISTING\s+SURFACES\s+COUNT\s+HOW\s+CHANGE\s+MOVED/,
    );
    expect(text[1]).toContain(
      `${runs[5]!.startedAt.toISOString()}  ${runs[5]!.lastSeenAt.toISOString()}`,
    );
    expect(text[1]).toMatch(
      new RegExp(
        `ok\\s+${change.change!.row.toHash.slice(0, 12)}\\s+\\d+ tools\\s+× 2\\s+poll\\s+#${change.change!.row.id} \\w+\\s+tools$`,
      ),
    );
    expect(text[3]).toMatch(/error\s+-\s+× 2\s+poll\s+connect ECONNREFUSED/);
  });

  it('prints counts with thousands separators', async () => {
    const server = await newServer('busy');
    for (let i = 0; i < 1_200; i++) await record(server, listed(memory), T0 + i * FIVE_MINUTES);
    expect(await cli('history', 'busy')).toMatch(/ok\s+[0-9a-f]{12}\s+\d+ tools\s+× 1,200\s+poll/);
  }, 120_000);
});
