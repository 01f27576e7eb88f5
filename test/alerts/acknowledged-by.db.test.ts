import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledge, acknowledgeAll, listAlertViews } from '../../src/alerts/alert-list.js';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed, withHints } from '../support/probe-results.js';
import { insertServer } from '../support/server-rows.js';

/*
 * Who acknowledged an alert, as the outbox shows it: read from the record of actions,
 * including the alerts that joined a digest and went with its first one.
 */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

let database: TestDatabase;
let handle: DatabaseHandle;

async function alertOf(server: ServerRow, tools: RawTool[], digestSeconds: number) {
  const result = await recordObservation(handle.db, {
    alerts: emailOnlyPolicy(['ops@example.org'], { minSeverity: 'info', digestSeconds }),
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
  });
  return result.change?.alert?.alert.id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open();
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`who acknowledged an alert (${backend})`, () => {
  it('names the actor of a digest’s acknowledgement on every alert it took along', async () => {
    const server = await insertServer(handle.db, 'digested');
    await alertOf(server, memory, 600);
    const first = (await alertOf(server, relaxed(memory, 'delete_entities'), 600))!;
    const joined = (await alertOf(server, memory, 600))!;
    const { acknowledged } = await acknowledge(handle.db, first, {
      actor: { name: 'bob', via: 'cli' },
    });
    expect(acknowledged).toEqual([first, joined]);
    const { alerts } = await listAlertViews(handle.db, { server: 'digested', limit: 10 });
    expect(alerts.map((alert) => [alert.id, alert.acknowledgedBy])).toEqual([
      [joined, { actor: 'bob', via: 'cli' }],
      [first, { actor: 'bob', via: 'cli' }],
    ]);
  });

  it('keeps the first acknowledger when the alert is acknowledged again, and none for an open one', async () => {
    const server = await insertServer(handle.db, 'twice');
    await alertOf(server, memory, 0);
    const one = (await alertOf(server, relaxed(memory, 'delete_entities'), 0))!;
    const open = (await alertOf(
      server,
      withHints(memory, 'read_graph', { openWorldHint: true }),
      0,
    ))!;
    await acknowledgeAll(handle.db, [one], { actor: { name: 'carol', via: 'console' } });
    const again = await acknowledgeAll(handle.db, [one], { actor: { name: 'dave', via: 'api' } });
    expect(again.acknowledged).toEqual([]);
    const { alerts } = await listAlertViews(handle.db, { server: 'twice', limit: 10 });
    expect(alerts.map((alert) => [alert.id, alert.acknowledgedBy])).toEqual([
      [open, null],
      [one, { actor: 'carol', via: 'console' }],
    ]);
  });
});
