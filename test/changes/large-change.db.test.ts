import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { alerts, findings, servers } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { allReadOnly, destructiveTools, listed } from '../support/probe-results.js';

/*
 * Issue 12, defect 2: a change with many findings was not recorded. 3,700 tools turned
 * read-only at once make 7,400 findings (a relaxation and a contradiction each), about
 * 67,000 parameters in one statement, beyond PostgreSQL's 65,534: no change, no alert.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const policy = emailOnlyPolicy([]);

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`a change with thousands of findings (${backend})`, () => {
  it('records 3,700 tools turned read-only at once, every finding, and its alert', async () => {
    const [server] = await handle.db
      .insert(servers)
      .values({ name: 'mass-relax', transport: 'http', url: 'http://127.0.0.1:9/mcp' })
      .returning();
    const before = destructiveTools(3_700);
    const observe = (tools: RawTool[]) =>
      recordObservation(handle.db, {
        alerts: policy,
        server: server!,
        result: listed(tools),
        trigger: 'poll',
        startedAt: new Date(),
      });
    await observe(before);
    const recorded = await observe(allReadOnly(before));

    expect(recorded.change).not.toBeNull();
    const { row, diff, alert } = recorded.change!;
    expect(row.severity).toBe('critical');
    expect(diff.findings.length).toBeGreaterThanOrEqual(7_400);
    const [stored] = await handle.db
      .select({ n: count() })
      .from(findings)
      .where(eq(findings.changeId, row.id));
    expect(stored!.n).toBe(diff.findings.length);
    const [queued] = await handle.db.select().from(alerts).where(eq(alerts.changeId, row.id));
    expect(queued).toMatchObject({ id: alert!.alert.id, severity: 'critical' });
  });
});
