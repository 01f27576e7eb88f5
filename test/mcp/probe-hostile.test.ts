import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftErrorCode } from '../../src/errors.js';
import { probe, SpawnHelper, type ProbeOptions, type ProbeResult } from '../../src/mcp/index.js';
import {
  closedLoopbackPort,
  fixturePath,
  isAlive,
  pidFile,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';

// Small caps keep the misbehaving cases fast. The timeout is short only where timing out is
// the point: elsewhere it must cover a node start on a loaded machine.
const baseOptions: ProbeOptions = {
  env: {},
  timeoutMs: 5000,
  closeGraceMs: 200,
  caps: { maxPages: 5, maxTools: 20, maxBytes: 64 * 1024 },
};

function failure(result: ProbeResult): { code: DriftErrorCode; reason: string } {
  if (result.ok) throw new Error(`expected a failure, got ${result.tools.length} tools`);
  expect(result).not.toHaveProperty('tools');
  return { code: result.code, reason: result.reason };
}

const target = (mode: string) =>
  `server "hostile-server" (${process.execPath} ${fixturePath('hostile-server.mjs')} --mode ${mode})`;

interface Case {
  mode: string;
  code: DriftErrorCode;
  reason: string | RegExp;
  /** Processes the attempt spawns: a retried connect spawns two. */
  spawns: number;
  /** Set when the failure comes after connecting, so the server's identity is known. */
  connected?: boolean;
  timeoutMs?: number;
}

const cases: Case[] = [
  {
    mode: 'repeat-cursor',
    code: 'REMOTE_PROTOCOL',
    reason: `${target('repeat-cursor')}: page 2 of tools/list repeats an earlier cursor "same-cursor"; the listing would never end`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'endless-pages',
    code: 'REMOTE_PROTOCOL',
    reason: `${target('endless-pages')}: the listing has more than 5 pages (page cap maxPages=5)`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'many-tools',
    code: 'REMOTE_PROTOCOL',
    // Counted in the raw line before it is parsed.
    reason: `${target('many-tools')}: the server sent a tools/list page with more than 20 tools (tool cap maxTools=20), counted before it was parsed`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'huge-listing',
    code: 'REMOTE_PROTOCOL',
    reason: `listing tools (page 1) from ${target('huge-listing')}: the server sent a message larger than ${64 * 1024 + 64 * 1024} bytes, more than the listing size cap allows`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'nameless-tool',
    code: 'REMOTE_PROTOCOL',
    reason: `${target('nameless-tool')} sent an invalid listing: the tools list: the tool at index 1 needs a non-empty string "name", but it has none`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'duplicate-names',
    code: 'REMOTE_PROTOCOL',
    reason: `${target('duplicate-names')} sent an invalid listing: the tools list: two tools are named "twin" (at index 0 and 2); tool names must be unique`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'bad-page',
    code: 'REMOTE_PROTOCOL',
    reason: `${target('bad-page')}: page 1 of tools/list has no "tools" array`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'list-error',
    code: 'REMOTE_PROTOCOL',
    reason: `listing tools (page 1) from ${target('list-error')}: the server answered with JSON-RPC error -32603: database is on fire`,
    spawns: 1,
    connected: true,
  },
  {
    mode: 'slow-list',
    code: 'REMOTE_TIMEOUT',
    reason: `listing tools (page 1) from ${target('slow-list')}: no answer within 1500 ms`,
    spawns: 1,
    connected: true,
    timeoutMs: 1500,
  },
  {
    mode: 'non-json',
    code: 'REMOTE_PROTOCOL',
    reason: `connecting to ${target('non-json')}: no answer within 1000 ms; it wrote non-JSON-RPC output to stdout: "Starting server... listening for requests!"`,
    spawns: 1,
    timeoutMs: 1000,
  },
  {
    mode: 'silent',
    code: 'REMOTE_TIMEOUT',
    reason: `connecting to ${target('silent')}: no answer within 600 ms`,
    spawns: 1,
    timeoutMs: 600,
  },
  {
    // Exiting during the server/discover probe looks like an SDK that refuses requests
    // before initialize, so the connect is retried once in the 2025 era.
    mode: 'exit-at-once',
    code: 'REMOTE_UNREACHABLE',
    reason: `connecting to ${target('exit-at-once')}: the server process exited with code 3 before answering; stderr: fatal: MISSING_API_KEY is not set`,
    spawns: 2,
  },
];

// serve starts stdio servers through its spawn helper: every case must read the same there.
const helper = new SpawnHelper();
afterAll(() => helper.stop());

describe.each([
  { how: 'spawned here', spawn: undefined },
  { how: 'spawned by the spawn helper', spawn: helper.spawn },
])('probe: misbehaving stdio servers, $how', ({ spawn }) => {
  const options: ProbeOptions = { ...baseOptions, spawn };

  it.each(cases)('$mode gives $code and leaves no process', async (testCase) => {
    const pids = pidFile();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', testCase.mode], { env: pids.env });
    spec.name = 'hostile-server';
    const result = await probe(spec, { ...options, timeoutMs: testCase.timeoutMs ?? 5000 });
    const { code, reason } = failure(result);
    expect(code).toBe(testCase.code);
    if (typeof testCase.reason === 'string') expect(reason).toBe(testCase.reason);
    else expect(reason).toMatch(testCase.reason);
    if (testCase.connected) {
      expect(result).toMatchObject({
        era: '2025',
        protocolVersion: '2025-06-18',
        serverInfo: { name: `fixture-hostile-${testCase.mode}`, version: '6.6.6' },
      });
    } else {
      expect(result).toMatchObject({ era: null, serverInfo: null });
    }
    expect(pids.pids()).toHaveLength(testCase.spawns);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('reports a process that exits at once on a connection whose era is already known', async () => {
    // With the era known there is no discovery probe: the first write meets a closed pipe.
    const spec = {
      name: 'quitter',
      transport: 'stdio' as const,
      command: process.execPath,
      args: ['-e', 'process.stderr.write("fatal: no key\\n"); process.exit(3)'],
      era: '2025' as const,
    };
    const { code, reason } = failure(await probe(spec, options));
    expect(code).toBe('REMOTE_UNREACHABLE');
    expect(reason).toMatch(
      /^connecting to .*: the server process exited with code 3 before answering; stderr: fatal: no key$/,
    );
  });

  it('waits for a process that closed its pipes to exit, and quotes its exit code and stderr', async () => {
    // Issue 12, defect 9: the write fails on the closed pipe before the exit is seen.
    const spec = {
      name: 'slow-quitter',
      transport: 'stdio' as const,
      command: process.execPath,
      args: [
        '-e',
        'process.stdin.destroy(); process.stdout.destroy(); setTimeout(() => { process.stderr.write("fatal: config missing\\n"); process.exit(3); }, 300);',
      ],
      era: '2025' as const,
    };
    expect(failure(await probe(spec, options))).toEqual({
      code: 'REMOTE_UNREACHABLE',
      reason: `connecting to server "slow-quitter" (${process.execPath} -e ${spec.args[1]!.slice(0, 120 - process.execPath.length - 4)}…): the server process exited with code 3 before answering; stderr: fatal: config missing`,
    });
  });

  it('reports a command that does not exist', async () => {
    const result = await probe(
      { name: 'missing', transport: 'stdio', command: '/nonexistent/mcp-server' },
      options,
    );
    expect(failure(result)).toEqual({
      code: 'REMOTE_UNREACHABLE',
      reason:
        'connecting to server "missing" (/nonexistent/mcp-server): the command (or its working directory) was not found',
    });
  });

  it('refuses a spec without a command', async () => {
    const result = await probe({ name: 'empty', transport: 'stdio' }, options);
    expect(failure(result)).toEqual({
      code: 'INVALID_INPUT',
      reason: 'server "empty" uses stdio but has no command',
    });
  });
});

describe('probe: misbehaving HTTP endpoints', () => {
  const options = baseOptions;
  const short = { ...options, timeoutMs: 600 };
  let silent: HttpFixture;
  let notMcp: HttpFixture;
  beforeAll(async () => {
    [silent, notMcp] = await Promise.all([
      startHttpFixture('hostile-server.mjs', ['--mode', 'silent']),
      startHttpFixture('hostile-server.mjs', ['--mode', 'not-mcp']),
    ]);
  });
  afterAll(() => Promise.all([silent.stop(), notMcp.stop()]));

  it('gives REMOTE_UNREACHABLE quickly for a closed loopback port', async () => {
    const port = await closedLoopbackPort();
    for (const transport of ['http', 'sse'] as const) {
      const url = `http://127.0.0.1:${port}/mcp`;
      const result = await probe(
        { name: 'closed', transport, url },
        { ...options, timeoutMs: 10_000 },
      );
      expect(failure(result)).toEqual({
        code: 'REMOTE_UNREACHABLE',
        reason: `connecting to server "closed" (${url}): connection refused (ECONNREFUSED)`,
      });
      expect(result.durationMs).toBeLessThan(1000);
    }
  });

  it('times out on a server that accepts and never answers', async () => {
    const url = `${silent.baseUrl}/mcp`;
    const result = await probe({ name: 'silent', transport: 'http', url }, short);
    expect(failure(result)).toEqual({
      code: 'REMOTE_TIMEOUT',
      reason: `connecting to server "silent" (${url}): no answer within 600 ms`,
    });
  });

  it('bounds a legacy SSE connect whose stream never starts', async () => {
    const url = `${silent.baseUrl}/sse`;
    const result = await probe({ name: 'silent', transport: 'sse', url }, short);
    // The SSE transport's own start has no timeout: the connect as a whole has one.
    expect(failure(result)).toEqual({
      code: 'REMOTE_TIMEOUT',
      reason: `connecting to server "silent" (${url}): no answer within 600 ms`,
    });
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('says when a URL is not an MCP endpoint', async () => {
    const url = `${notMcp.baseUrl}/mcp`;
    const result = await probe({ name: 'web', transport: 'http', url }, options);
    expect(failure(result)).toEqual({
      code: 'REMOTE_PROTOCOL',
      reason: `connecting to server "web" (${url}): the server did not answer as an MCP endpoint (Unexpected content type: text/html); check the URL`,
    });
  });

  it('refuses a URL that is not http(s)', async () => {
    const result = await probe(
      { name: 'ftp', transport: 'http', url: 'ftp://127.0.0.1/' },
      options,
    );
    expect(failure(result)).toEqual({
      code: 'INVALID_INPUT',
      reason: 'server "ftp" has a ftp: url; use http: or https:',
    });
  });
});
