import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { acknowledge } from '../../src/alerts/alert-list.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import { LiveFeed, type LiveUpdate } from '../../src/console/live-feed.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { servers } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';
import { waitUntil } from '../support/wait.js';

/* The console's live feed: which kinds move when the service writes, and its event stream. */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
let database: TestDatabase;
let handle: DatabaseHandle;
let feed: LiveFeed;
const updates: LiveUpdate[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  feed = new LiveFeed(handle.db, { logger: createLogger('silent'), intervalMs: 50 });
  feed.subscribe((update) => updates.push(update));
  feed.start();
});
afterAll(async () => {
  feed?.stop();
  await handle?.close();
  await database?.drop();
});

/** Waits for the next update after `count` and returns the kinds of all since. */
async function kindsAfter(count: number): Promise<Set<string>> {
  await waitUntil('the live feed to see a move', () => updates.length > count, {
    timeoutMs: 10_000,
  });
  // A write of several tables can land across two polls: give the second one its turn.
  const revision = feed.revision;
  await waitUntil('one more poll', () => feed.revision >= revision, { timeoutMs: 10_000 });
  return new Set(updates.slice(count).flatMap((update) => update.kinds));
}

describe(`the console's live feed (${backend})`, () => {
  it('names what moved: a server added, a listing, a change with its alert, an acknowledgement', async () => {
    // The first poll sets where things stand; it is no update.
    await feed.nextPoll();
    expect(updates).toEqual([]);
    let seen = updates.length;
    const [server] = await handle.db
      .insert(servers)
      .values({ name: 'watched', transport: 'http', url: 'http://127.0.0.1:9/mcp' })
      .returning();
    expect(await kindsAfter(seen)).toContain('servers');

    const observe = (tools: RawTool[]) =>
      recordObservation(handle.db, {
        alerts: emailOnlyPolicy(['ops@example.org']),
        server: server!,
        result: listed(tools),
        trigger: 'poll',
        startedAt: new Date(),
      });
    seen = updates.length;
    await observe(memory);
    expect([...(await kindsAfter(seen))]).toEqual(
      expect.arrayContaining(['observations', 'baselines']),
    );

    seen = updates.length;
    const change = (await observe(relaxed(memory, 'delete_entities'))).change!;
    expect([...(await kindsAfter(seen))]).toEqual(
      expect.arrayContaining(['changes', 'observations', 'alerts', 'deliveries']),
    );

    seen = updates.length;
    await acknowledge(handle.db, change.alert!.alert.id);
    const kinds = await kindsAfter(seen);
    expect(kinds).toContain('alerts');
    expect(kinds).not.toContain('changes');
    // Revisions only go up, one per poll that saw a move.
    expect(updates.map((update) => update.revision)).toEqual(updates.map((_, index) => index + 1));
  });

  it('sends a page rendered at an older revision an update at once', async () => {
    const reader = feed.eventStream(0).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: update')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel();
    expect(text).toMatch(/^retry: 3000\n\n/);
    const data = JSON.parse(/data: (.*)\n/.exec(text)![1]!) as LiveUpdate;
    expect(data.revision).toBe(feed.revision);
  });
});
