import { setTimeout as sleep } from 'node:timers/promises';
import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  changes,
  findings,
  heldSessions,
  observations,
  outages,
  servers,
} from '../../src/db/schema.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  controlFixture,
  fixturePath,
  isAlive,
  pidFile,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startEverythingServer } from '../support/everything-server.js';
import { startServe, type RunningServe } from '../support/serve.js';

/*
 * `mcp-drift serve` watching real fixture servers whose listings the tests change while it
 * runs, with and without a change notification, on both protocol eras.
 */

let database: TestDatabase;
let serve: RunningServe;
let handle: DatabaseHandle;
const fixtures: HttpFixture[] = [];
/** Other servers the tests started, stopped at the end. */
const stops: Array<() => Promise<void>> = [];
/** Probes never fire on their own in a test unless a test asks for them. */
const YEARLY = '0 0 1 1 *';
const EVERY_2S = '*/2 * * * * *';

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; serve log:\n${serve.log().slice(-4000)}`);
    await sleep(200);
  }
}

async function fixture(script: string, args: string[] = []): Promise<HttpFixture> {
  const started = await startHttpFixture(script, args);
  fixtures.push(started);
  return started;
}

async function addServer(
  name: string,
  url: string,
  schedule: string,
  transport: 'http' | 'sse' = 'http',
): Promise<number> {
  const added = await cli(
    'server',
    'add',
    name,
    '--url',
    url,
    '--transport',
    transport,
    '--schedule',
    schedule,
    '--json',
  );
  expect(added.code, added.stderr).toBe(0);
  const [row] = await handle.db
    .select({ id: servers.id })
    .from(servers)
    .where(eq(servers.name, name));
  return row!.id;
}

/** Resolves once the server's held session is up and has listed. */
function sessionUp(serverId: number) {
  return waitFor(`a held session for server ${serverId}`, async () => {
    const [row] = await handle.db
      .select()
      .from(heldSessions)
      .where(and(eq(heldSessions.serverId, serverId), isNotNull(heldSessions.listingHash)));
    return row;
  });
}

function firstChange(serverId: number) {
  return waitFor(`a change of server ${serverId}`, async () => {
    const [row] = await handle.db.select().from(changes).where(eq(changes.serverId, serverId));
    return row;
  });
}

function findingsOf(changeId: number) {
  return handle.db
    .select()
    .from(findings)
    .where(eq(findings.changeId, changeId))
    .orderBy(asc(findings.id));
}

beforeAll(async () => {
  database = await createTestDatabase();
  serve = await startServe({ env: { ...database.env, LOG_LEVEL: 'debug' }, cwd: database.dir });
  handle = await database.open();
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop(); // a no-op when the last test stopped it already
  await Promise.all([...fixtures.map((f) => f.stop()), ...stops.map((stop) => stop())]);
  await database?.drop();
});

describe(`serve watching servers (${backend})`, () => {
  it.each([
    ['1.x SDK, 2025 era', 'sdk1-server.mjs', []],
    ['2.x SDK, 2026-07-28 era', 'sdk2-server.mjs', ['--eras', '2026']],
  ])('records a change announced by a notification (%s)', async (label, script, args) => {
    const server = await fixture(script, args);
    const name = `announced-${script.slice(0, 4)}`;
    const id = await addServer(name, `${server.baseUrl}/mcp`, YEARLY);
    const session = await sessionUp(id);
    await controlFixture(server.baseUrl, { relax: true, notify: true });
    const change = await firstChange(id);
    expect(change.fromHash).toBe(session.listingHash);
    expect(change.notificationSeen).toBe(true);
    expect(change.severity).toBe('critical');
    const found = await findingsOf(change.id);
    expect(found.map((f) => f.kind)).not.toContain('silent_change');
    expect(found).toContainEqual(
      expect.objectContaining({
        kind: 'annotation_relaxed',
        field: 'readOnlyHint',
        severity: 'critical',
      }),
    );
    // The held session's row is updated right after the change commits.
    await waitFor('the held session to hold the new listing', async () => {
      const [held] = await handle.db
        .select()
        .from(heldSessions)
        .where(eq(heldSessions.serverId, id));
      return held?.listingHash === change.toHash ? true : undefined;
    });
    expect(label).toBeTruthy();
  });

  it('records a change made without a notification as a silent change at the next probe', async () => {
    const server = await fixture('sdk1-server.mjs');
    const id = await addServer('silent', `${server.baseUrl}/mcp`, EVERY_2S);
    const session = await sessionUp(id);
    await controlFixture(server.baseUrl, { relax: true, notify: false });
    const change = await firstChange(id);
    expect(change).toMatchObject({
      fromHash: session.listingHash,
      notificationSeen: false,
      severity: 'critical',
    });
    const found = await findingsOf(change.id);
    expect(found).toContainEqual(
      expect.objectContaining({ tool: null, kind: 'silent_change', severity: 'high' }),
    );
    // The relaxation inside a silent change is escalated (already critical, so capped there).
    const relaxed = found.find(
      (f) => f.kind === 'annotation_relaxed' && f.field === 'readOnlyHint',
    );
    expect(relaxed).toMatchObject({ tool: 'delete_note', severity: 'critical' });
    expect(relaxed!.record).toMatchObject({
      severity: { base: 'critical', escalations: [expect.stringMatching(/silent change/)] },
    });
    // The held session was never told: it still holds the old listing, as a host would.
    const [held] = await handle.db.select().from(heldSessions).where(eq(heldSessions.serverId, id));
    expect(held!.listingHash).toBe(session.listingHash);
  });

  // The published server-everything announces a tool it registers on
  // notifications/initialized. Over legacy SSE the announcement reaches the held session:
  // depending on when it lands, it makes a re-list of its own or is covered by the startup
  // listing, which is read after it; either way the held listing is read after it. Over
  // Streamable HTTP it is sent before any client has opened its GET stream (the known race,
  // see HeldSession's tests). Both ways, the scheduled probes agree with the held listing,
  // which has that tool, and nothing is recorded as a change.
  it.each(['sse', 'streamableHttp'] as const)(
    'holds the published server-everything over %s; its probes agree with the held listing',
    async (mode) => {
      const server = await startEverythingServer(mode);
      stops.push(server.stop);
      const transport = mode === 'sse' ? 'sse' : 'http';
      const id = await addServer(`everything-${mode}`, server.url, EVERY_2S, transport);
      const session = await sessionUp(id);
      // Runs keep each trigger's latest time, not every attempt: two probes are a run's
      // latest poll moving on.
      const polled = () =>
        handle.db
          .select()
          .from(observations)
          .where(and(eq(observations.serverId, id), isNotNull(observations.lastPollAt)));
      const first = await waitFor('a probe of server-everything', async () => {
        const times = (await polled()).map((row) => row.lastPollAt!.getTime());
        return times.length > 0 ? Math.max(...times) : undefined;
      });
      const polls = await waitFor('a second probe of server-everything', async () => {
        const rows = await polled();
        return rows.some((row) => row.lastPollAt!.getTime() > first) ? rows : undefined;
      });
      for (const row of polls) {
        expect(row, row.errorMessage ?? '').toMatchObject({ outcome: 'ok' });
        expect(row.listingHash).toBe(session.listingHash);
      }
      expect(await handle.db.select().from(changes).where(eq(changes.serverId, id))).toEqual([]);
      const [held] = await handle.db
        .select()
        .from(heldSessions)
        .where(eq(heldSessions.serverId, id));
      expect(held!.listingHash).toBe(session.listingHash);
      if (mode === 'sse') {
        expect(held!.lastNotificationAt).not.toBeNull();
        expect(held!.listedAt!.getTime()).toBeGreaterThanOrEqual(
          held!.lastNotificationAt!.getTime(),
        );
      }
      expect((await cli('server', 'disable', `everything-${mode}`)).code).toBe(0);
    },
  );

  it('watches a server added while serve runs, and closes its session when it is disabled', async () => {
    const server = await fixture('sdk1-server.mjs');
    const id = await addServer('late', `${server.baseUrl}/mcp`, YEARLY);
    await sessionUp(id);
    expect((await controlFixture(server.baseUrl, {})).sessions).toBe(1);
    const disabled = await cli('server', 'disable', 'late');
    expect(disabled.code, disabled.stderr).toBe(0);
    await waitFor('the held session to close', async () => {
      const rows = await handle.db.select().from(heldSessions).where(eq(heldSessions.serverId, id));
      return rows.length === 0 ? true : undefined;
    });
    await waitFor('the fixture to see its session go', async () =>
      (await controlFixture(server.baseUrl, {})).sessions === 0 ? true : undefined,
    );
  });

  it('records a server killed and restarted 5 times as down and up, never as tools removed', async () => {
    let server = await fixture('sdk1-server.mjs');
    const id = await addServer('restarted', `${server.baseUrl}/mcp`, YEARLY);
    const session = await sessionUp(id);
    for (let round = 1; round <= 5; round++) {
      await server.kill();
      await waitFor(`outage ${round} to open`, async () => {
        const [open] = await handle.db
          .select()
          .from(outages)
          .where(and(eq(outages.serverId, id), isNull(outages.upAt)));
        return open;
      });
      server = await startHttpFixture('sdk1-server.mjs', [], { port: server.port });
      fixtures.push(server);
      // Sessions this short never prove themselves, so each reconnect waits longer than the
      // one before (1 s, 2 s, 4 s, … with jitter): a server that flaps is retried ever
      // more slowly (issue 12, defect 5).
      await waitFor(
        `outage ${round} to close`,
        async () => {
          const closed = await handle.db
            .select()
            .from(outages)
            .where(and(eq(outages.serverId, id), isNotNull(outages.upAt)));
          return closed.length === round ? closed : undefined;
        },
        75_000,
      );
    }
    await sessionUp(id);
    expect(await handle.db.select().from(changes).where(eq(changes.serverId, id))).toEqual([]);
    const [held] = await handle.db.select().from(heldSessions).where(eq(heldSessions.serverId, id));
    expect(held!.listingHash).toBe(session.listingHash);
  });

  it('leaves no stdio server behind when serve stops', async () => {
    const pids = pidFile();
    try {
      for (const [name, hold] of [
        ['held-stdio', ['--hold']],
        ['probed-stdio', []],
      ] as const) {
        const added = await cli(
          'server',
          'add',
          name,
          ...hold,
          '--schedule',
          EVERY_2S,
          '--env',
          `MCP_FIXTURE_PID_FILE=${pids.path}`,
          '--stdio',
          '--',
          process.execPath,
          fixturePath('sdk1-server.mjs'),
        );
        expect(added.code, added.stderr).toBe(0);
      }
      const [held] = await handle.db
        .select({ id: servers.id })
        .from(servers)
        .where(eq(servers.name, 'held-stdio'));
      await sessionUp(held!.id);
      await waitFor('a probe of the probed stdio server', async () =>
        pids.pids().length >= 2 ? true : undefined,
      );
      await handle.close();
      expect((await serve.stop()).code).toBe(0);
      for (const pid of pids.pids()) expect(isAlive(pid), `fixture pid ${pid}`).toBe(false);
    } finally {
      pids.remove();
    }
  });
});
