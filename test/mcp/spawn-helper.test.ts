import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openSession, probe, SpawnHelper, type SessionOptions } from '../../src/mcp/index.js';
import { isAlive, stdioFixture } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

// Timeouts cover a node start on a loaded machine; nothing here measures time.
const options: SessionOptions = { env: {}, timeoutMs: 15_000, closeGraceMs: 200 };

/** Field 4 of /proc/PID/stat: the parent's pid. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

describe('SpawnHelper: stdio servers started by a helper process', () => {
  const helpers: SpawnHelper[] = [];
  const newHelper = () => {
    const helper = new SpawnHelper();
    helpers.push(helper);
    return helper;
  };
  afterEach(async () => {
    await Promise.all(helpers.splice(0).map((helper) => helper.stop()));
  });

  it('starts the server as the helper’s child, lists through it, and ends it on close', async () => {
    const helper = newHelper();
    const session = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      spawn: helper.spawn,
    });
    const pid = session.pid!;
    try {
      expect(helper.pid).toBeDefined();
      expect(helper.pid).not.toBe(process.pid);
      expect(parentOf(pid)).toBe(helper.pid);
      const listing = await session.listTools();
      expect(listing.tools.map((tool) => tool.name)).toContain('purge_tenant');
    } finally {
      await session.close();
    }
    expect(isAlive(pid)).toBe(false);
  });

  it('reports a child that dies: onClose fires once, with the exit seen', async () => {
    const helper = newHelper();
    let closes = 0;
    const session = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      spawn: helper.spawn,
      onClose: () => closes++,
    });
    const pid = session.pid!;
    process.kill(pid, 'SIGKILL');
    await waitUntil('the session to see its server die', () => closes > 0);
    await expect(session.listTools()).rejects.toMatchObject({ code: 'REMOTE_UNREACHABLE' });
    await session.close();
    expect(closes).toBe(1);
  });

  it('reports each of many servers that exit at once, started together', async () => {
    // Their stdio handles queue behind each other's in the helper while they exit.
    const helper = newHelper();
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        probe(stdioFixture('hostile-server.mjs', ['--mode', 'exit-at-once']), {
          ...options,
          spawn: helper.spawn,
        }),
      ),
    );
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, code: 'REMOTE_UNREACHABLE' });
      expect(result.ok ? '' : result.reason).toMatch(
        /the server process exited with code 3 before answering; stderr: fatal: MISSING_API_KEY is not set$/,
      );
    }
  });

  it('kills the servers still running when it stops', async () => {
    const helper = newHelper();
    let closed = false;
    const session = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      spawn: helper.spawn,
      onClose: () => (closed = true),
    });
    const pid = session.pid!;
    expect(isAlive(pid)).toBe(true);
    await helper.stop();
    await waitUntil('the server to be killed with the helper', () => !isAlive(pid));
    await waitUntil('the session to be closed', () => closed);
    await session.close();
  });

  it('starts a new helper for the next server after its helper died', async () => {
    const helper = newHelper();
    const first = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      spawn: helper.spawn,
    });
    const gone = helper.pid!;
    process.kill(gone, 'SIGKILL');
    await waitUntil('the helper to be gone', () => !isAlive(gone));
    await first.close();
    const second = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      spawn: helper.spawn,
    });
    try {
      expect(helper.pid).toBeDefined();
      expect(helper.pid).not.toBe(gone);
      expect(parentOf(second.pid!)).toBe(helper.pid);
      expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });
});
