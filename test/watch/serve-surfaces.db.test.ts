import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, asc, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { changes, findings, heldSessions, observations, servers } from '../../src/db/schema.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';

/*
 * `mcp-drift serve` holding fixture servers that offer prompts and resources: a change to
 * either, announced by `notifications/prompts/list_changed` and
 * `notifications/resources/list_changed` (2025) or on the `subscriptions/listen` stream
 * (2026-07-28), is re-listed by the held session and recorded with its kind.
 */

let database: TestDatabase;
let serve: RunningServe;
let handle: DatabaseHandle;
const fixtures: HttpFixture[] = [];
const folder = mkdtempSync(path.join(tmpdir(), 'mcp-drift-serve-surfaces-'));
/** Probes never fire on their own: only the held session lists. */
const YEARLY = '0 0 1 1 *';

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 30_000,
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

beforeAll(async () => {
  database = await createTestDatabase();
  serve = await startServe({ env: { ...database.env, LOG_LEVEL: 'debug' }, cwd: database.dir });
  handle = await database.open();
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await Promise.all(fixtures.map((f) => f.stop()));
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe(`serve: prompts and resources over notifications (${backend})`, () => {
  it.each([
    ['1.x SDK, 2025 era', 'sdk1-server.mjs', []],
    ['2.x SDK, 2026-07-28 era', 'sdk2-server.mjs', ['--eras', '2026']],
  ])(
    'records a changed prompt and a new resource announced by notifications (%s)',
    async (_, script, args) => {
      const file = path.join(folder, `${script}.json`);
      writeFileSync(file, '{}');
      const server = await startHttpFixture(script, ['--surfaces', file, ...args]);
      fixtures.push(server);
      const name = `surfaces-${script.slice(0, 4)}`;
      const added = await cli(
        'server',
        'add',
        name,
        '--url',
        `${server.baseUrl}/mcp`,
        '--transport',
        'http',
        '--schedule',
        YEARLY,
      );
      expect(added.code, added.stderr).toBe(0);
      const [row] = await handle.db
        .select({ id: servers.id })
        .from(servers)
        .where(eq(servers.name, name));
      const id = row!.id;
      const session = await waitFor('the held session', async () => {
        const [held] = await handle.db
          .select()
          .from(heldSessions)
          .where(and(eq(heldSessions.serverId, id), isNotNull(heldSessions.listingHash)));
        return held;
      });

      writeFileSync(
        file,
        JSON.stringify({
          promptDescription: 'Summarizes every note, newest first.',
          extraResource: true,
        }),
      );
      await controlFixture(server.baseUrl, { surfaces: true });

      // The two notifications may arrive before one re-list or between two: either way the
      // changes, together, say what moved.
      const recorded = await waitFor('both surface changes', async () => {
        const rows = await handle.db
          .select()
          .from(changes)
          .where(eq(changes.serverId, id))
          .orderBy(asc(changes.id));
        if (rows.length === 0) return undefined;
        const found = await handle.db
          .select()
          .from(findings)
          .where(
            inArray(
              findings.changeId,
              rows.map((change) => change.id),
            ),
          );
        const kinds = found.map((f) => [f.kind, f.tool]);
        const both =
          kinds.some(([kind]) => kind === 'prompt_changed') &&
          kinds.some(([kind]) => kind === 'resource_added');
        return both ? { rows, found } : undefined;
      });
      expect(recorded.rows[0]!.fromHash).toBe(session.listingHash);
      for (const change of recorded.rows) expect(change.notificationSeen).toBe(true);
      expect(recorded.found.map((f) => f.kind)).not.toContain('silent_change');
      expect(recorded.found).toContainEqual(
        expect.objectContaining({
          kind: 'prompt_changed',
          tool: 'prompt:summarize_notes',
          field: 'description',
        }),
      );
      expect(recorded.found).toContainEqual(
        expect.objectContaining({ kind: 'resource_added', tool: 'resource:notes://changelog' }),
      );
      // Each change came from a re-list the notification triggered.
      const triggers = await handle.db
        .select({ trigger: observations.trigger })
        .from(observations)
        .where(
          inArray(
            observations.id,
            recorded.rows.map((change) => change.observationId),
          ),
        );
      expect(new Set(triggers.map((t) => t.trigger))).toEqual(new Set(['notification']));
    },
    90_000,
  );
});
