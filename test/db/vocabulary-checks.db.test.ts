import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  alerts,
  baselines,
  changes,
  deliveries,
  findings,
  listings,
  observationCounts,
  observations,
  operatorActions,
  serverImports,
  servers,
} from '../../src/db/schema.js';
import { DELIVERY_STATUSES } from '../../src/vocabulary/channels.js';
import { TRIGGERS } from '../../src/vocabulary/observations.js';
import { OPERATOR_ACTIONS } from '../../src/vocabulary/operator-actions.js';
import { CHANGE_SEVERITIES } from '../../src/vocabulary/severities.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * Every column with a fixed vocabulary refuses a value outside it in the database itself, so a
 * bug (or a hand-edited row) cannot store a word the code does not know. Each case writes a
 * valid row through the schema, then sets the column to a word outside the vocabulary with
 * raw SQL, as a bug that bypassed the types would.
 */

let database: TestDatabase;
let owner: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  owner = await database.open({ share: true });
});
afterAll(async () => {
  await owner?.close();
  await database?.drop();
});

/** The CHECK constraint a refused statement names, or what else went wrong. */
async function refusal(statement: ReturnType<typeof sql>): Promise<string> {
  try {
    await owner.db.execute(statement);
  } catch (error) {
    for (let e: unknown = error; e instanceof Error; e = e.cause) {
      const fields = e as { code?: unknown; constraint_name?: string; constraint?: string };
      if (fields.code === '23514') return fields.constraint_name ?? fields.constraint ?? '?';
    }
    return `not a check violation: ${String(error)}`;
  }
  return 'accepted';
}

describe(`vocabulary columns (${backend})`, () => {
  it('refuse a word outside their vocabulary, naming the constraint', async () => {
    const [server] = await owner.db
      .insert(servers)
      .values({ name: 'vocab', transport: 'http', url: 'http://127.0.0.1:9/mcp' })
      .returning();
    const id = server!.id;
    await owner.db.insert(serverImports).values({
      serverId: id,
      host: 'cursor',
      sourcePath: '/nowhere/mcp.json',
      entryName: 'vocab',
      entryHash: 'h',
    });
    await owner.db
      .insert(listings)
      .values({ hash: 'l1', body: '{"tools":[]}', toolHashes: {}, toolCount: 0, byteSize: 12 });
    const now = new Date();
    const [observation] = await owner.db
      .insert(observations)
      .values({
        serverId: id,
        startedAt: now,
        lastSeenAt: now,
        durationMs: 1,
        trigger: 'manual',
        outcome: 'ok',
        listingHash: 'l1',
      })
      .returning();
    await owner.db
      .insert(observationCounts)
      .values({ trigger: 'manual', outcome: 'ok', bucket: 0, count: 1, sumMs: 1 });
    const [change] = await owner.db
      .insert(changes)
      .values({ serverId: id, toHash: 'l1', observationId: observation!.id, severity: 'high' })
      .returning();
    await owner.db.insert(findings).values({
      changeId: change!.id,
      tool: 't',
      kind: 'annotation_relaxed',
      severity: 'high',
      explanation: 'e',
      record: {},
    });
    await owner.db
      .insert(baselines)
      .values({ serverId: id, listingHash: 'l1', approvedBy: 'first-listing' });
    const [alert] = await owner.db
      .insert(alerts)
      .values({ serverId: id, changeId: change!.id, severity: 'high' })
      .returning();
    await owner.db.insert(deliveries).values({
      alertId: alert!.id,
      serverId: id,
      channel: 'email',
      destination: 'ops@example.org',
      key: 'k1',
    });
    await owner.db.insert(operatorActions).values({
      actor: 'test',
      via: 'cli',
      action: 'alert.ack',
      server: 'vocab',
      subject: String(alert!.id),
    });

    const cases: [string, string, string][] = [
      ['servers', 'transport', 'servers_transport'],
      ['servers', 'trust', 'servers_trust'],
      ['servers', 'alert_min_severity', 'servers_alert_min_severity'],
      ['servers', 'protocol_era', 'servers_protocol_era'],
      ['server_imports', 'host', 'server_imports_host'],
      ['observations', 'trigger', 'observations_trigger'],
      ['observations', 'outcome', 'observations_outcome'],
      ['observation_counts', 'trigger', 'observation_counts_trigger'],
      ['observation_counts', 'outcome', 'observation_counts_outcome'],
      ['changes', 'severity', 'changes_severity'],
      ['findings', 'severity', 'findings_severity'],
      ['baselines', 'approved_by', 'baselines_approved_by'],
      ['alerts', 'severity', 'alerts_severity'],
      ['deliveries', 'channel', 'deliveries_channel'],
      ['deliveries', 'status', 'deliveries_status'],
      ['operator_actions', 'via', 'operator_actions_via'],
      ['operator_actions', 'action', 'operator_actions_action'],
    ];
    const refused: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [table, column, constraint] of cases) {
      const key = `${table}.${column}`;
      expected[key] = constraint;
      refused[key] = await refusal(
        sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = 'bogus'`,
      );
    }
    expect(refused).toEqual(expected);
  });

  it('still accept every word of the vocabulary', async () => {
    // The other side of the same constraints: a CHECK that refused a real value would fail
    // writes in production, so each vocabulary's words are written back one by one.
    const words: [string, string, readonly string[]][] = [
      ['changes', 'severity', CHANGE_SEVERITIES],
      ['deliveries', 'status', DELIVERY_STATUSES],
      ['observations', 'trigger', TRIGGERS],
      ['operator_actions', 'action', OPERATOR_ACTIONS],
    ];
    const outcomes: Record<string, string> = {};
    for (const [table, column, values] of words) {
      for (const value of values) {
        outcomes[`${table}.${column} = ${value}`] = await refusal(
          sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = ${value}`,
        );
      }
    }
    expect(Object.entries(outcomes).filter(([, outcome]) => outcome !== 'accepted')).toEqual([]);
  });
});
