import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { fixturePath } from '../support/mcp-fixtures.js';

/*
 * `history` and `change show` say which surfaces a change moved and what each listing holds
 * (docs/history.md): the 2.x fixture over stdio reads its prompts, resources, template and
 * instructions from a file the test rewrites between checks.
 */

let database: TestDatabase;
const folder = mkdtempSync(path.join(tmpdir(), 'mcp-drift-history-surfaces-'));
const file = path.join(folder, 'surfaces.json');
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });

async function ok(...args: string[]): Promise<string> {
  const result = await cli(...args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

const BEFORE = '4 tools, 1 prompt, 1 resource, 1 resource template, instructions';
const AFTER = '4 tools, 1 prompt, 2 resources, 1 resource template, instructions';

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe(`history and change show name the surfaces that moved (${backend})`, () => {
  it('lists each listing surface counts and the moved surfaces, in text and JSON', async () => {
    writeFileSync(file, '{}');
    await ok(
      'server',
      'add',
      'notes',
      '--stdio',
      '--',
      process.execPath,
      fixturePath('sdk2-server.mjs'),
      '--surfaces',
      file,
    );
    const first = JSON.parse(await ok('check', 'notes', '--json'));
    writeFileSync(
      file,
      JSON.stringify({ extraResource: true, instructions: 'Always search before creating.' }),
    );
    const second = JSON.parse(await ok('check', 'notes', '--json'));
    const changeId: number = second.change.id;

    const history = JSON.parse(await ok('history', 'notes', '--json'));
    expect(history.runs).toHaveLength(2);
    const [latest, earlier] = history.runs;
    expect(latest.change).toEqual({
      id: changeId,
      severity: second.severity,
      fromHash: first.observation.listingHash,
      surfaces: ['resources', 'instructions'],
    });
    expect(latest.surfaces).toEqual(second.observation.surfaces);
    expect(earlier.surfaces).toEqual(first.observation.surfaces);
    expect(earlier.change).toBeNull();

    const text = await ok('history', 'notes');
    const rows = text.trim().split('\n');
    expect(rows[0]).toMatch(/SURFACES .*MOVED/);
    expect(rows[1]).toContain(AFTER);
    expect(rows[1]).toContain(`#${changeId} ${second.severity}`);
    expect(rows[1]).toContain('resources, instructions');
    expect(rows[2]).toContain(BEFORE);

    const shown = await ok('change', 'show', String(changeId));
    expect(shown).toContain('surfaces moved: resources, instructions');
    expect(shown).toContain(`before: ${BEFORE}`);
    expect(shown).toContain(`after: ${AFTER}`);
    const json = JSON.parse(await ok('change', 'show', String(changeId), '--json'));
    expect(json.change.surfaces).toEqual(['resources', 'instructions']);
    expect(json.change.listings).toEqual({
      before: first.observation.surfaces,
      after: second.observation.surfaces,
    });
    const feed = JSON.parse(await ok('changes', '--json'));
    expect(feed.changes[0]).toMatchObject({
      id: changeId,
      surfaces: ['resources', 'instructions'],
    });

    // Listings stored before their surfaces were kept are read from their bodies: the same.
    const handle = await database.open();
    try {
      await handle.db.execute(sql`update listings set surfaces = null`);
    } finally {
      await handle.close();
    }
    expect(JSON.parse(await ok('history', 'notes', '--json'))).toEqual(history);
    expect(JSON.parse(await ok('change', 'show', String(changeId), '--json'))).toEqual(json);
  }, 120_000);

  it('a tools-only listing has only tools, and a first listing moved nothing', async () => {
    await ok(
      'server',
      'add',
      'plain',
      '--stdio',
      '--',
      process.execPath,
      fixturePath('sdk1-server.mjs'),
    );
    const first = JSON.parse(await ok('check', 'plain', '--json'));
    const history = JSON.parse(await ok('history', 'plain', '--json'));
    expect(history.runs[0].surfaces).toEqual({
      tools: { hash: first.observation.listingHash, count: 4 },
      prompts: null,
      resources: null,
      resourceTemplates: null,
      instructions: null,
    });
    expect(history.runs[0].change).toBeNull();
    expect(await ok('history', 'plain')).toContain(' 4 tools ');
  }, 60_000);
});
