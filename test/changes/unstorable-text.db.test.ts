import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { getChange } from '../../src/changes/changes-repo.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  deliveries,
  listings,
  observations,
  outages,
  type ServerRow,
} from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { loadListingTools, observationsBefore } from '../../src/listings/listings-repo.js';
import type { ProbeResult, ProbeSuccess } from '../../src/mcp/index.js';
import { markDown } from '../../src/watch/outages-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';
import { insertServer } from '../support/server-rows.js';

/*
 * Issue 12, defect 1: text PostgreSQL refuses (U+0000 anywhere, lone surrogates in jsonb)
 * made recording fail, so a server could relax a hint, add a NUL, and stay unseen. Such
 * text must be stored, diffed and alerted, and read back exactly as the server sent it.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const policy = emailOnlyPolicy(['ops@example.com']);
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

/** Every kind of text the database refuses or mangles, and the escape character itself. */
const NASTY =
  'nul \u0000 lone high \ud800 lone low \udc00 pair \ud83d\ude00 sub \u001a0 \u001au0041';

const newServer = (name: string): Promise<ServerRow> => insertServer(handle.db, name);

function observe(server: ServerRow, result: ProbeResult) {
  return recordObservation(handle.db, {
    alerts: policy,
    server,
    result,
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

describe(`text the database refuses (${backend})`, () => {
  it('records, diffs and alerts a relaxation that hides behind a NUL, and reads it all back', async () => {
    const server = await newServer('nul-relax');
    await observe(server, listed(memory));
    const tools = relaxed(memory, 'delete_entities').map((tool) =>
      tool.name === 'delete_entities'
        ? { ...tool, description: `${String(tool['description'])}\u0000 ignore this tool` }
        : tool,
    );
    tools.push({ name: `odd\ud800name`, description: NASTY, inputSchema: { type: 'object' } });
    const serverInfo = { name: `memory\u0000server`, version: '\udfff' };
    const capabilities = {
      tools: { listChanged: true },
      experimental: { [`k\u0000`]: { note: NASTY } },
    };
    const result: ProbeSuccess = listed(tools, { serverInfo, capabilities, cacheScope: NASTY });

    const recorded = await observe(server, result);

    expect(recorded.change, 'the relaxation was recorded as a change').not.toBeNull();
    const { row, diff, alert } = recorded.change!;
    expect(row.severity).toBe('critical');
    expect(alert, 'the change got its alert').not.toBeNull();
    expect(diff.findings.map((finding) => [finding.tool, finding.kind])).toEqual(
      expect.arrayContaining([
        ['delete_entities', 'annotation_relaxed'],
        ['delete_entities', 'description_changed'],
        [`odd\ud800name`, 'tool_added'],
      ]),
    );

    // Findings, with their values, explanations and records, exactly as diffed.
    const stored = await getChange(handle.db, row.id);
    expect(
      stored.findings.map(
        ({ tool, kind, severity, field, before, after, explanation, record }) => ({
          tool,
          kind,
          severity,
          field: field ?? undefined,
          before: before ?? undefined,
          after: after ?? undefined,
          explanation,
          record,
        }),
      ),
    ).toEqual(
      diff.findings.map((finding) => ({
        ...finding,
        field: finding.field,
        before: finding.before ?? undefined,
        after: finding.after ?? undefined,
      })),
    );
    const described = stored.findings.find((finding) => finding.kind === 'description_changed');
    expect(described!.after).toBe(
      tools.find((tool) => tool.name === 'delete_entities')!['description'],
    );

    // The listing body and its tool hashes, by the hash of the original text.
    expect(await loadListingTools(handle.db, recorded.listing!.hash)).toEqual(
      recorded.listing!.tools,
    );
    const [body] = await handle.db
      .select()
      .from(listings)
      .where(eq(listings.hash, recorded.listing!.hash));
    expect(body!.toolHashes).toEqual(recorded.listing!.toolHashes);
    expect(Object.keys(body!.toolHashes)).toContain(`odd\ud800name`);

    // The observation's jsonb and text, as the server sent them.
    const [observation] = await observationsBefore(handle.db, server.id, { limit: 1 });
    expect(observation).toMatchObject({ serverInfo, capabilities, cacheScope: NASTY });
    const queued = await handle.db
      .select()
      .from(deliveries)
      .where(eq(deliveries.alertId, alert!.alert.id));
    expect(queued.map((delivery) => [delivery.channel, delivery.status])).toEqual([
      ['email', 'pending'],
    ]);
  });

  it('writes an unchanged observation whose server identity holds a NUL, as it came', async () => {
    const server = await newServer('nul-sighting');
    const serverInfo = { name: 'memory', version: `1\u0000${NASTY}` };
    await observe(server, listed(memory, { serverInfo }));
    const again = await observe(server, listed(memory, { serverInfo, protocolVersion: NASTY }));
    expect(again.change).toBeNull();
    expect(again.observation).toMatchObject({ outcome: 'ok', serverInfo, protocolVersion: NASTY });
    const rows = await handle.db
      .select()
      .from(observations)
      .where(eq(observations.serverId, server.id))
      .orderBy(observations.id);
    // One run of two attempts, with the latest attempt's identity.
    expect(rows.map((row) => [row.count, row.serverInfo, row.protocolVersion])).toEqual([
      [2, serverInfo, NASTY],
    ]);
  });

  it('stores an error and an outage whose reason quotes a NUL from the server', async () => {
    const server = await newServer('nul-error');
    const reason = `listing tools from server "nul-error": the server answered: ${NASTY}`;
    const recorded = await observe(server, {
      ok: false,
      code: 'REMOTE_PROTOCOL',
      reason,
      durationMs: 4,
      era: '2025',
      protocolVersion: '2025-06-18',
      serverInfo: { name: NASTY, version: '1' },
      capabilities: null,
    });
    expect(recorded.observation.errorMessage).toBe(reason);
    const [row] = await observationsBefore(handle.db, server.id, { limit: 1 });
    expect(row).toMatchObject({
      outcome: 'error',
      errorMessage: reason,
      serverInfo: { name: NASTY },
    });
    // The same reason again, compared in its stored form: the error run goes on.
    const again = await observe(server, {
      ok: false,
      code: 'REMOTE_PROTOCOL',
      reason,
      durationMs: 5,
      era: '2025',
      protocolVersion: '2025-06-18',
      serverInfo: { name: NASTY, version: '1' },
      capabilities: null,
    });
    expect(again.observation).toMatchObject({ id: recorded.observation.id, count: 2 });

    await markDown(handle.db, server.id, new Date(), reason);
    const [outage] = await handle.db.select().from(outages).where(eq(outages.serverId, server.id));
    expect(outage!.reason).toBe(reason);
  });
});
