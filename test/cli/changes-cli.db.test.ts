import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { servers, type ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';

/*
 * `changes --severity/--since/--kind`, `alerts list --server` and `change show` against
 * changes the recorder wrote: an old critical relaxation on one server, a recent low change
 * of three descriptions on another. Each filter must keep one and drop the other, so a
 * filter that is ignored fails.
 */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const DAY = 86_400_000;
let database: TestDatabase;
const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

interface ChangeJson {
  id: number;
  server: string;
  severity: string;
  headline: { kind: string } | null;
}

async function changes(...flags: string[]): Promise<ChangeJson[]> {
  const result = await cli('changes', '--json', ...flags);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { changes: ChangeJson[] }).changes;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const handle: DatabaseHandle = await database.open();
  try {
    const newServer = async (name: string): Promise<ServerRow> =>
      (
        await handle.db
          .insert(servers)
          .values({ name, transport: 'http', url: `http://127.0.0.1:9/${name}` })
          .returning()
      )[0]!;
    const observe = (server: ServerRow, tools: RawTool[], at: Date, version = '0.6.3') =>
      recordObservation(handle.db, {
        alerts: emailOnlyPolicy(['ops@example.org'], { minSeverity: 'low' }),
        server,
        // A new version with each new listing: no unversioned-change finding beside the one made.
        result: listed(tools, { serverInfo: { name: 'memory-server', version } }),
        trigger: 'poll',
        startedAt: at,
      });
    const now = Date.now();
    const old = await newServer('old-critical');
    await observe(old, memory, new Date(now - 10 * DAY));
    await observe(
      old,
      relaxed(memory, 'delete_entities'),
      new Date(now - 10 * DAY + 60_000),
      '0.6.4',
    );
    const recent = await newServer('recent-low');
    await observe(recent, memory, new Date(now - 3_600_000));
    const reworded = memory.map((tool) =>
      ['read_graph', 'search_nodes', 'open_nodes'].includes(tool.name)
        ? { ...tool, description: `${tool.description} (reworded)` }
        : tool,
    );
    await observe(recent, reworded, new Date(now - 60_000), '0.6.4');
  } finally {
    await handle.close();
  }
});
afterAll(async () => {
  await database?.drop();
});

describe(`changes and alerts filters in the CLI (${backend})`, () => {
  it('lists both changes unfiltered, each with the kind of its worst finding', async () => {
    const all = await changes();
    expect(all.map((change) => [change.server, change.severity, change.headline?.kind])).toEqual([
      ['recent-low', 'low', 'description_changed'],
      ['old-critical', 'critical', 'annotation_relaxed'],
    ]);
  });

  it('--severity keeps changes at or above the level', async () => {
    expect((await changes('--severity', 'high')).map((change) => change.server)).toEqual([
      'old-critical',
    ]);
    expect((await changes('--severity', 'low')).map((change) => change.server)).toEqual([
      'recent-low',
      'old-critical',
    ]);
  });

  it('--since takes a duration or a date', async () => {
    expect((await changes('--since', '24h')).map((change) => change.server)).toEqual([
      'recent-low',
    ]);
    expect((await changes('--since', '30d')).map((change) => change.server)).toEqual([
      'recent-low',
      'old-critical',
    ]);
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    expect(await changes('--since', tomorrow)).toEqual([]);
  });

  it('--kind keeps changes with a finding of that kind; filters combine', async () => {
    expect((await changes('--kind', 'description_changed')).map((change) => change.server)).toEqual(
      ['recent-low'],
    );
    expect(
      (await changes('--kind', 'annotation_relaxed', '--since', '24h')).map((c) => c.server),
    ).toEqual([]);
    const text = await cli('changes', '--kind', 'annotation_relaxed', '--since', '24h');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('no changes match these filters\n');
  });

  it('prints the filtered changes as a table with their headline', async () => {
    const result = await cli('changes', '--severity', 'critical');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+SERVER\s+DETECTED\s+SEVERITY\s+LISTING\s+NOTIFIED\s+HEADLINE$/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/old-critical .* critical .* delete_entities: annotation_relaxed/);
  });

  it('rejects a bad value with exit 2, naming the valid kinds, and every bad flag at once', async () => {
    const result = await cli('changes', '--kind', 'relaxed', '--since', 'yesterday');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('invalid --kind "relaxed": use one of annotation_relaxed,');
    expect(result.stderr).toContain('description_changed');
    expect(result.stderr).toContain('invalid --since "yesterday"');
    const severity = await cli('changes', '--severity', 'severe');
    expect(severity.code).toBe(2);
    expect(severity.stderr).toContain('invalid --severity "severe"');
  });

  it('alerts list --server shows that server’s alerts only', async () => {
    const all = JSON.parse((await cli('alerts', 'list', '--json')).stdout) as {
      alerts: { server: string }[];
    };
    expect(all.alerts.map((alert) => alert.server).sort()).toEqual(['old-critical', 'recent-low']);
    const one = await cli('alerts', 'list', '--server', 'old-critical', '--json');
    expect(one.code, one.stderr).toBe(0);
    const shown = (JSON.parse(one.stdout) as { alerts: { server: string; severity: string }[] })
      .alerts;
    expect(shown.map((alert) => [alert.server, alert.severity])).toEqual([
      ['old-critical', 'critical'],
    ]);
    const text = await cli('alerts', 'list', '--server', 'recent-low');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('recent-low');
    expect(text.stdout).not.toContain('old-critical');
    const none = await cli('alerts', 'list', '--server', 'recent-low', '--status', 'failed');
    expect(none.stdout).toBe('no failed alerts of recent-low\n');
    const missing = await cli('alerts', 'list', '--server', 'nope');
    expect(missing.code).toBe(3);
  });

  it('alerts list --severity, and alerts ack of several ids or of a server, saying by whom', async () => {
    const listed = async (...flags: string[]) =>
      (
        JSON.parse((await cli('alerts', 'list', '--json', ...flags)).stdout) as {
          alerts: { id: number; server: string; acknowledgedBy: { via: string } | null }[];
        }
      ).alerts;
    expect((await listed('--severity', 'high')).map((alert) => alert.server)).toEqual([
      'old-critical',
    ]);
    expect((await cli('alerts', 'list', '--severity', 'severe')).code).toBe(2);
    const ids = Object.fromEntries((await listed()).map((alert) => [alert.server, alert.id]));

    const nothingNamed = await cli('alerts', 'ack');
    expect(nothingNamed.code).toBe(2);
    expect(nothingNamed.stderr).toContain('--server NAME');
    const both = await cli('alerts', 'ack', String(ids['old-critical']), '--server', 'recent-low');
    expect(both.code).toBe(2);

    const byServer = await cli('alerts', 'ack', '--server', 'recent-low', '--json');
    expect(byServer.code, byServer.stderr).toBe(0);
    expect(JSON.parse(byServer.stdout)).toEqual({ acknowledged: [ids['recent-low']] });
    expect((await cli('alerts', 'ack', '--server', 'recent-low')).stdout).toBe(
      'recent-low has no open alerts\n',
    );
    const several = await cli(
      'alerts',
      'ack',
      String(ids['old-critical']),
      String(ids['recent-low']),
    );
    expect(several.code, several.stderr).toBe(0);
    expect(several.stdout).toBe(`acknowledged alert ${ids['old-critical']}\n`);

    expect((await listed()).map((alert) => alert.acknowledgedBy?.via)).toEqual(['cli', 'cli']);
    const table = (await cli('alerts', 'list')).stdout;
    expect(table.match(/acknowledged by \S+/g)).toHaveLength(2);
  });
});

describe(`change show (${backend})`, () => {
  const count = (text: string, part: string) => text.split(part).length - 1;

  it('prints what the findings share once, and their own records only with --details', async () => {
    const [change] = await changes('--server', 'recent-low');
    const plain = await cli('change', 'show', String(change!.id));
    expect(plain.code, plain.stderr).toBe(0);
    expect(count(plain.stdout, 'stale sessions: ')).toBe(1);
    expect(count(plain.stdout, 'trust: untrusted: ')).toBe(1);
    expect(count(plain.stdout, '  effect: ')).toBe(0);
    expect(plain.stdout).toContain(`mcp-drift change show ${change!.id} --details`);

    const detailed = await cli('change', 'show', String(change!.id), '--details');
    expect(detailed.code, detailed.stderr).toBe(0);
    expect(count(detailed.stdout, 'stale sessions: ')).toBe(1);
    expect(count(detailed.stdout, 'trust: untrusted: ')).toBe(1);
    expect(count(detailed.stdout, '  effect: ')).toBe(3);
    for (const tool of ['read_graph', 'search_nodes', 'open_nodes']) {
      expect(detailed.stdout).toContain(`${tool}: description_changed`);
    }
    expect(plain.stdout.split('\n').length).toBeLessThan(detailed.stdout.split('\n').length);
  });
});
