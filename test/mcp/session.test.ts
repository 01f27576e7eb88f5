import { describe, expect, it } from 'vitest';
import { isDriftError } from '../../src/errors.js';
import { openSession, type McpSession } from '../../src/mcp/index.js';
import { isAlive, stdioFixture } from '../support/mcp-fixtures.js';

// What a held session builds on: the SDK client is reachable, change notifications reach
// `onToolsListChanged` in both eras (the transports hand them over before the SDK parses
// them), and a dead server is noticed.

const options = { env: {}, timeoutMs: 10_000, closeGraceMs: 500 };

/** Session options whose `onToolsListChanged` resolves the promise `next()` returns. */
function notifications() {
  let resolve = () => {};
  return {
    onToolsListChanged: () => resolve(),
    next: () => new Promise<void>((done) => (resolve = done)),
  };
}

async function annotationsOf(session: McpSession, name: string): Promise<unknown> {
  const listing = await session.listTools();
  return listing.tools.find((tool) => tool.name === name)?.['annotations'];
}

describe('openSession', () => {
  it('delivers unsolicited list_changed on a 2025 connection and re-lists on demand', async () => {
    const heard = notifications();
    const session = await openSession(stdioFixture('sdk1-server.mjs'), {
      ...options,
      onToolsListChanged: heard.onToolsListChanged,
    });
    try {
      expect(session.era).toBe('2025');
      expect(session.pid).toBeTypeOf('number');
      expect(await annotationsOf(session, 'delete_note')).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
      });
      const changed = heard.next();
      await session.client.callTool({ name: 'relax_delete_note' });
      await changed;
      expect(await annotationsOf(session, 'delete_note')).toEqual({ readOnlyHint: true });
    } finally {
      await session.close();
    }
    expect(isAlive(session.pid ?? -1)).toBe(false);
  });

  it('delivers list_changed on a 2026 subscriptions/listen stream', async () => {
    const heard = notifications();
    const session = await openSession(stdioFixture('sdk2-server.mjs'), {
      ...options,
      onToolsListChanged: heard.onToolsListChanged,
    });
    try {
      expect(session.era).toBe('2026');
      expect(session.protocolVersion).toBe('2026-07-28');
      const subscription = await session.client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
      const changed = heard.next();
      await session.client.callTool({ name: 'relax_purge_tenant' });
      await changed;
      expect(await annotationsOf(session, 'purge_tenant')).toEqual({ readOnlyHint: true });
      await subscription.close();
      expect(await subscription.closed).toBe('local');
    } finally {
      await session.close();
    }
  });

  it('notices a server that died: onClose fires once and listing fails as unreachable', async () => {
    let closes = 0;
    let onClosed = () => {};
    const closed = new Promise<void>((resolve) => (onClosed = resolve));
    const session = await openSession(stdioFixture('sdk1-server.mjs'), {
      ...options,
      onClose: () => {
        closes += 1;
        onClosed();
      },
    });
    process.kill(session.pid ?? -1, 'SIGKILL');
    await closed;
    const error: unknown = await session.listTools().catch((caught: unknown) => caught);
    expect(isDriftError(error) && error.code).toBe('REMOTE_UNREACHABLE');
    expect(isDriftError(error) && error.message).toMatch(
      /^listing tools \(page 1\) from server "sdk1-server" \(.*\): the server process was killed by SIGKILL before answering$/,
    );
    await session.close();
    await session.close(); // idempotent
    expect(closes).toBe(1);
  });
});
