import { describe, expect, it } from 'vitest';
import type { ConnectSpec } from '../../src/mcp/index.js';
import {
  controlFixture,
  isAlive,
  pidFile,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import {
  expectFixtureListing,
  holdSession,
  Recorder,
  SDK1,
  SDK2,
  until,
  type FixtureListing,
} from './held-session-support.js';

// A server that goes away is down (onDown), comes back (onUp) and is listed afresh; it is
// never reported as a server without tools.

const HTTP_CASES: { fixture: FixtureListing; args: string[]; era: string }[] = [
  { fixture: SDK1, args: [], era: '2025' },
  { fixture: SDK2, args: ['--eras', '2026'], era: '2026' },
];

function httpSpec(name: string, http: HttpFixture): ConnectSpec {
  return { name, transport: 'http', url: `${http.baseUrl}/mcp` };
}

describe('HeldSession: outages over Streamable HTTP', () => {
  it.each(HTTP_CASES)(
    '$fixture.script ($era): killed and restarted 3 times: down, up, a fresh startup listing',
    async ({ fixture, args, era }) => {
      let http = await startHttpFixture(fixture.script, args);
      const recorder = new Recorder();
      const spec = httpSpec('restarted', http);
      const target = `server "restarted" (${http.baseUrl}/mcp)`;
      const held = holdSession(spec, recorder);
      try {
        await until('the first startup listing', () => recorder.listings.length === 1, recorder);
        for (let round = 1; round <= 3; round += 1) {
          await http.kill();
          await until(`down #${round}`, () => recorder.downs.length === round, recorder);
          expect(held.state === 'down' || held.state === 'connecting').toBe(true);
          expect(recorder.downs[round - 1]).toContain(target);
          http = await startHttpFixture(fixture.script, args, { port: http.port });
          await until(
            `up #${round + 1} and its listing`,
            () => recorder.ups === round + 1 && recorder.listings.length === round + 1,
            recorder,
          );
        }
        expect(recorder.events).toEqual([
          'up',
          'listing:startup',
          ...Array.from({ length: 3 }, () => ['down', 'up', 'listing:startup']).flat(),
        ]);
        for (const listing of recorder.listings) {
          expectFixtureListing(listing, fixture, 'startup', 'base');
        }
        expect(held.era).toBe(era);
        expect(held.state).toBe('up');
      } finally {
        await held.stop();
        await http.stop();
      }
    },
  );

  it('sdk1 (2025): a session the server forgot (HTTP 404) is replaced by a new one', async () => {
    const http = await startHttpFixture(SDK1.script);
    const recorder = new Recorder();
    const held = holdSession(httpSpec('expiring', http), recorder);
    try {
      await until('the startup listing', () => recorder.listings.length === 1, recorder);
      // Relaxed silently first: the new session must list what the server says now.
      await controlFixture(http.baseUrl, { relax: true, notify: false });
      await controlFixture(http.baseUrl, { expireSessions: true });
      await until('a new session', () => recorder.listings.length === 2, recorder);
      expect(recorder.downs).toHaveLength(1);
      expect(recorder.downs[0]).toMatch(
        /^(checking|talking to) server "expiring" \(http:\/\/127\.0\.0\.1:\d+\/mcp\): the session expired \(HTTP 404\)$/,
      );
      expect(recorder.events).toEqual(['up', 'listing:startup', 'down', 'up', 'listing:startup']);
      expectFixtureListing(recorder.listings[1], SDK1, 'startup', 'relaxed');
      expect(recorder.notifications).toBe(0);
    } finally {
      await held.stop();
      await http.stop();
    }
  });

  it('sdk2 (2026): a dropped listen stream is re-opened and the gap re-listed, without a down', async () => {
    const http = await startHttpFixture(SDK2.script, ['--eras', '2026']);
    const recorder = new Recorder();
    const held = holdSession(httpSpec('dropped', http), recorder);
    try {
      await until('the startup listing', () => recorder.listings.length === 1, recorder);
      // A change made while no stream is open reaches nobody; the re-list after
      // re-subscribing finds it.
      const answer = await controlFixture(http.baseUrl, {
        relax: true,
        notify: false,
        dropStreams: true,
      });
      expect(answer.streams).toBe(1);
      await until(
        'the re-list after re-subscribing',
        () => recorder.listings.length === 2,
        recorder,
      );
      expectFixtureListing(recorder.listings[1], SDK2, 'startup', 'relaxed');
      expect(recorder.notifications).toBe(0);

      // The new stream delivers.
      await controlFixture(http.baseUrl, { relax: false, notify: true });
      await until('a notified re-list', () => recorder.listings.length === 3, recorder);
      expectFixtureListing(recorder.listings[2], SDK2, 'notification', 'base');
      expect(recorder.notifications).toBe(1);
      expect(recorder.events).toEqual([
        'up',
        'listing:startup',
        'listing:startup',
        'listing:notification',
      ]);
    } finally {
      await held.stop();
      await http.stop();
    }
  });

  it('sdk1 (2025): a dropped GET stream is re-opened by the SDK, without a down', async () => {
    const http = await startHttpFixture(SDK1.script);
    const recorder = new Recorder();
    const held = holdSession(httpSpec('dropped-get', http), recorder);
    try {
      await until('the startup listing', () => recorder.listings.length === 1, recorder);
      const streams = async () => (await controlFixture(http.baseUrl, {})).streams;
      expect(await streams()).toBe(1);
      await controlFixture(http.baseUrl, { dropStreams: true });
      await until('the GET stream gone', async () => (await streams()) === 0);
      await until('the GET stream re-opened', async () => (await streams()) === 1);
      await controlFixture(http.baseUrl, { relax: true, notify: true });
      await until('a notified re-list', () => recorder.listings.length === 2, recorder);
      expectFixtureListing(recorder.listings[1], SDK1, 'notification', 'relaxed');
      expect(recorder.downs).toEqual([]);
      expect(recorder.ups).toBe(1);
    } finally {
      await held.stop();
      await http.stop();
    }
  });
});

describe('HeldSession: outages over stdio', () => {
  it.each([
    { fixture: SDK1, era: '2025' },
    { fixture: SDK2, era: '2026' },
  ] as { fixture: FixtureListing; era: string }[])(
    '$fixture.script ($era): a child killed with SIGKILL is down, respawned and listed',
    async ({ fixture, era }) => {
      const pids = pidFile();
      const recorder = new Recorder();
      const held = holdSession(stdioFixture(fixture.script, [], { env: pids.env }), recorder);
      try {
        await until('the startup listing', () => recorder.listings.length === 1, recorder);
        const [first] = pids.pids();
        process.kill(first ?? -1, 'SIGKILL');
        await until('down', () => recorder.downs.length === 1, recorder);
        expect(recorder.downs[0]).toMatch(
          new RegExp(
            `^server "${fixture.script.replace('.mjs', '')}" \\(.*\\): the server process exited`,
          ),
        );
        await until('up again and listed', () => recorder.listings.length === 2, recorder);
        expect(recorder.events).toEqual(['up', 'listing:startup', 'down', 'up', 'listing:startup']);
        expectFixtureListing(recorder.listings[1], fixture, 'startup', 'base');
        expect(held.era).toBe(era);
        // The era learned first is reused: one process per connection, no negotiation probe.
        expect(pids.pids()).toHaveLength(2);
      } finally {
        await held.stop();
      }
      expect(pids.pids().filter(isAlive)).toEqual([]);
      pids.remove();
    },
  );
});
