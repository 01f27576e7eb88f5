import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { exited, runCli, spawnCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  fixturePath,
  pidFile,
  REPO_ROOT,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { sarifSchemaErrors } from '../support/sarif.js';

/*
 * `mcp-drift check` against real MCP servers: fixtures on both SDK lines over stdio and
 * Streamable HTTP, and published servers installed from npm. Each check spawns the CLI,
 * which connects, lists every page, records the observation, and diffs against the baseline.
 */

let database: TestDatabase;
const http: HttpFixture[] = [];
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });
const node = process.execPath;
const bin = (name: string) => path.join(REPO_ROOT, 'node_modules', '.bin', name);

async function check(name: string, ...flags: string[]) {
  const result = await cli('check', name, '--json', ...flags);
  expect(result.stderr, `check ${name}`).toBe(flags.includes('--fail-on') ? result.stderr : '');
  return { ...result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
}

async function add(...args: string[]) {
  const result = await cli('server', 'add', ...args);
  expect(result.code, result.stderr).toBe(0);
}

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(http.map((fixture) => fixture.stop()));
  await database?.drop();
});

describe(`check against real MCP servers (${backend})`, () => {
  it('sets the baseline from a 1.x stdio server, then catches it turning a destructive tool read-only', async () => {
    await add('notes', '--trust', 'trusted', '--stdio', '--', node, fixturePath('sdk1-server.mjs'));
    const first = await check('notes');
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      server: 'notes',
      observation: {
        protocolVersion: '2025-11-25',
        serverInfo: { name: 'fixture-sdk1' },
        pages: 1,
      },
      baseline: { approvedBy: 'first-listing', created: true },
      change: null,
      severity: 'none',
      findings: [],
    });

    const edited = await cli(
      'server',
      'edit',
      'notes',
      '--stdio',
      '--',
      node,
      fixturePath('sdk1-server.mjs'),
      '--variant',
      'relaxed',
    );
    expect(edited.code, edited.stderr).toBe(0);
    const relaxed = await check('notes', '--fail-on', 'high');
    expect(relaxed.code).toBe(1);
    expect(relaxed.stderr.trim()).toBe('mcp-drift: severity critical reaches --fail-on high');
    expect(relaxed.json.severity).toBe('critical');
    expect(relaxed.json.change).toMatchObject({
      severity: 'critical',
      fromHash: first.json.observation.listingHash,
    });
    const readOnly = relaxed.json.findings.find(
      (f: { kind: string; field?: string }) =>
        f.kind === 'annotation_relaxed' && f.field === 'readOnlyHint',
    );
    expect(readOnly).toMatchObject({
      tool: 'delete_note',
      severity: 'critical',
      before: false,
      after: true,
    });
    expect(readOnly.record.trust.level).toBe('trusted');

    // The human view of the same state, and SARIF, then the operator approves it.
    const text = await cli('check', 'notes');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^delete_note \(critical\)$/m);
    const sarif = await cli('check', 'notes', '--format', 'sarif');
    expect(sarif.code, sarif.stderr).toBe(0);
    const log = JSON.parse(sarif.stdout);
    expect(sarifSchemaErrors(log)).toEqual([]);
    const result = log.runs[0].results.find(
      (r: { ruleId: string; properties: { field?: string } }) =>
        r.ruleId === 'annotation_relaxed' && r.properties.field === 'readOnlyHint',
    );
    // A live server is in no file: the result names it by its logical location.
    expect(result.locations).toEqual([
      {
        logicalLocations: [
          {
            name: 'delete_note',
            fullyQualifiedName: 'notes/delete_note/annotations/readOnlyHint',
            kind: 'member',
          },
        ],
      },
    ]);
    const approved = await cli('baseline', 'approve', 'notes', '--yes', '--json');
    expect(JSON.parse(approved.stdout).approved.hash).toBe(relaxed.json.observation.listingHash);
    const after = await check('notes');
    expect(after.json).toMatchObject({ severity: 'none', baseline: { approvedBy: 'operator' } });

    const history = await cli('history', 'notes', '--json');
    const runs = JSON.parse(history.stdout).runs;
    // Every check records one: the first, then the relaxed (a change), the text, the SARIF
    // and the approved one, which saw the relaxed listing again: two runs.
    expect(runs.map((run: { count: number }) => run.count)).toEqual([4, 1]);
    expect(runs.filter((o: { change: unknown }) => o.change !== null)).toHaveLength(1);
  });

  it('keeps an unknown annotation key and reports it as other_changed when it changes', async () => {
    await add(
      'mail',
      '--stdio',
      '--',
      node,
      fixturePath('sdk1-server.mjs'),
      '--vendor-hint',
      'mail-v2',
    );
    await check('mail');
    const shown = await cli('baseline', 'show', 'mail', '--json');
    const sendEmail = JSON.parse(shown.stdout).tools.find(
      (t: { name: string }) => t.name === 'send_email',
    );
    expect(sendEmail.annotations.vendorHint).toBe('mail-v2');
    await cli(
      'server',
      'edit',
      'mail',
      '--stdio',
      '--',
      node,
      fixturePath('sdk1-server.mjs'),
      '--vendor-hint',
      'mail-v3',
    );
    const changed = await check('mail');
    expect(changed.json.findings).toEqual([
      // The fixture reports serverInfo.version 1.4.2 before and after.
      expect.objectContaining({ tool: null, kind: 'unversioned_change', severity: 'low' }),
      expect.objectContaining({
        tool: 'send_email',
        kind: 'other_changed',
        field: 'annotations.vendorHint',
        severity: 'info',
        before: 'mail-v2',
        after: 'mail-v3',
      }),
    ]);
  });

  it('lists every page of a server that paginates 2 tools per page over Streamable HTTP', async () => {
    const fixture = await startHttpFixture('paginating-server.mjs', [
      '--tools',
      '11',
      '--page-size',
      '2',
    ]);
    http.push(fixture);
    await add('pages', '--url', `${fixture.baseUrl}/mcp`);
    const result = await check('pages');
    expect(result.code).toBe(0);
    expect(result.json.observation).toMatchObject({ pages: 6, toolCount: 11 });
  });

  it('speaks the 2026-07-28 protocol to a 2.x server over Streamable HTTP and remembers the era', async () => {
    const fixture = await startHttpFixture('sdk2-server.mjs', [
      '--eras',
      '2026',
      '--ttl-ms',
      '60000',
      '--cache-scope',
      'public',
    ]);
    http.push(fixture);
    await add('modern', '--url', `${fixture.baseUrl}/mcp`);
    const result = await check('modern');
    expect(result.code).toBe(0);
    expect(result.json.observation.protocolVersion).toBe('2026-07-28');
    const shown = await cli('server', 'show', 'modern', '--json');
    expect(JSON.parse(shown.stdout).protocolEra).toBe('2026');
    expect((await check('modern')).json.observation.protocolVersion).toBe('2026-07-28');
  });

  it('checks a 2.x server over stdio', async () => {
    await add('modern-stdio', '--stdio', '--', node, fixturePath('sdk2-server.mjs'));
    const result = await check('modern-stdio');
    expect(result.code).toBe(0);
    expect(result.json.observation.toolCount).toBeGreaterThan(0);
    expect(result.json.observation.serverInfo.name).toMatch(/sdk2/);
  });

  it('checks published servers installed from npm', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-fs-'));
    try {
      await add('everything', '--stdio', '--', bin('mcp-server-everything'));
      await add('filesystem', '--stdio', '--', bin('mcp-server-filesystem'), dir);
      const everything = await check('everything');
      expect(everything.code).toBe(0);
      const filesystem = await check('filesystem');
      expect(filesystem.code).toBe(0);
      expect(filesystem.json.observation.serverInfo.name).toBe('secure-filesystem-server');
      const tools = JSON.parse(
        (await cli('baseline', 'show', 'filesystem', '--json')).stdout,
      ).tools;
      expect(tools.map((t: { name: string }) => t.name)).toContain('write_file');
      const everythingTools = JSON.parse(
        (await cli('baseline', 'show', 'everything', '--json')).stdout,
      ).tools;
      expect(everythingTools.map((t: { name: string }) => t.name)).toContain('echo');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records a hostile server as an error observation, exits 4 and sets no baseline', async () => {
    await add(
      'hostile',
      '--stdio',
      '--',
      node,
      fixturePath('hostile-server.mjs'),
      '--mode',
      'duplicate-names',
    );
    const result = await cli('check', 'hostile');
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^mcp-drift: check hostile: .*two tools are named "twin"/);
    const history = JSON.parse((await cli('history', 'hostile', '--json')).stdout);
    expect(history.runs).toEqual([
      expect.objectContaining({
        outcome: 'error',
        listingHash: null,
        error: expect.objectContaining({ code: 'REMOTE_PROTOCOL' }),
      }),
    ]);
    const baseline = await cli('baseline', 'show', 'hostile');
    expect(baseline.code).toBe(3);
  });

  it('closes the stdio server it started when interrupted with Ctrl-C, and exits 130', async () => {
    const pids = pidFile();
    try {
      await add(
        'stuck',
        '--env',
        `MCP_FIXTURE_PID_FILE=${pids.path}`,
        '--stdio',
        '--',
        node,
        fixturePath('hostile-server.mjs'),
        '--mode',
        'silent',
      );
      const child = spawnCli(['check', 'stuck'], { env: database.env, cwd: database.dir });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      while (pids.pids().length === 0) await sleep(50);
      child.kill('SIGINT');
      expect(await exited(child)).toBe(130);
      expect(stderr).toContain('check stuck interrupted');
      for (const pid of pids.pids()) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      pids.remove();
    }
  });
});
