import { describe, expect, it } from 'vitest';
import { databaseAtMigration } from '../support/migration-subject.js';
import { backend } from '../support/database.js';

/*
 * Migration 0007 turns one row per observation into one row per run (issue 16). The
 * database is built as the previous release left it (the migrations up to 0006), filled
 * with observations, changes, findings, baselines and exposure as that release wrote them,
 * then migrated: every change, finding, baseline and exposure must read as before, each
 * change must point at a run of its new listing that starts where its observation did, and
 * what `history` and the listing spans show must be what the observations said.
 */

const PREVIOUS = '0006_server_imports';

const subject = databaseAtMigration(PREVIOUS);

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** [minute, trigger, outcome, hash or error message, duration]: one server's observations. */
type Seen = [number, string, 'ok' | 'error', string, number];
const SEEN: Seen[] = [
  [0, 'startup', 'ok', 'h1', 40],
  [5, 'poll', 'ok', 'h1', 60],
  [10, 'notification', 'ok', 'h1', 70],
  [15, 'poll', 'error', 'connect ECONNREFUSED', 3],
  [20, 'poll', 'error', 'connect ECONNREFUSED', 4],
  [25, 'poll', 'error', 'timed out', 30_000],
  [30, 'poll', 'ok', 'h1', 55],
  [35, 'poll', 'ok', 'h2', 65], // change 1: h1 -> h2
  [40, 'poll', 'ok', 'h2', 80],
  [45, 'manual', 'ok', 'h2', 900],
  [50, 'notification', 'ok', 'h1', 120], // change 2: h2 -> h1
  [55, 'poll', 'ok', 'h1', 50],
];

describe(`migrating observations to runs (${backend})`, () => {
  it('keeps every change, finding, baseline and exposure, and the history they came from', async () => {
    const { query } = subject;
    await query(`insert into servers (id, name, transport, url) values
      (1, 'fx', 'http', 'http://127.0.0.1:9/mcp'), (2, 'quiet', 'http', 'http://127.0.0.1:9/q')`);
    await query(`insert into listings (hash, body, tool_hashes, tool_count, byte_size) values
      ('h1', '{"tools":[]}', '{}', 0, 12), ('h2', '[{"name":"a"}]', '{"a":"x"}', 1, 14)`);
    for (const [index, [minute, trigger, outcome, what, ms]] of SEEN.entries()) {
      const ok = outcome === 'ok';
      await query(`insert into observations (id, server_id, started_at, duration_ms, trigger,
          outcome, listing_hash, error_code, error_message, server_info)
        values (${index + 1}, 1, '${at(minute)}', ${ms}, '${trigger}', '${outcome}',
          ${ok ? `'${what}'` : 'null'}, ${ok ? 'null' : "'REMOTE_UNREACHABLE'"},
          ${ok ? 'null' : `'${what}'`}, '{"name":"fx","version":"${index}"}')`);
    }
    // Two observations of the quiet server; its first listing is its baseline.
    await query(`insert into observations (id, server_id, started_at, duration_ms, trigger, outcome, listing_hash)
      values (100, 2, '${at(0)}', 5, 'poll', 'ok', 'h2'), (101, 2, '${at(5)}', 5, 'poll', 'ok', 'h2')`);
    await query(`insert into changes (id, server_id, previous_change_id, from_hash, to_hash,
        observation_id, detected_at, severity, notification_seen, exposure) values
      (1, 1, null, 'h1', 'h2', 8, '${at(35)}', 'high', false,
        '{"oldListing":{"hash":"h1","firstObserved":"${at(0)}","lastObserved":"${at(30)}"},"notificationSeen":false,"ttlMs":null}'),
      (2, 1, 1, 'h2', 'h1', 11, '${at(50)}', 'critical', true,
        '{"oldListing":{"hash":"h2","firstObserved":"${at(35)}","lastObserved":"${at(45)}"},"notificationSeen":true,"ttlMs":60000}')`);
    await query(`insert into findings (change_id, tool, kind, severity, field, before, after, explanation, record)
      values (1, 'a', 'tool_added', 'low', null, null, null, 'a was added', '{"tool":"a"}'),
        (2, 'a', 'tool_removed', 'low', null, null, null, 'a was removed', '{"tool":"a"}')`);
    await query(`insert into baselines (server_id, listing_hash, approved_at, approved_by) values
      (1, 'h2', '${at(40)}', 'operator'), (2, 'h2', '${at(0)}', 'first-listing')`);

    const read = {
      changes: `select * from changes order by id`,
      findings: `select * from findings order by id`,
      baselines: `select * from baselines order by server_id`,
      listings: `select * from listings order by hash`,
      spans: `select server_id, listing_hash, min(started_at) as first, max(started_at) as last
        from observations where outcome = 'ok' group by 1, 2 order by 1, 2`,
      attempts: `select trigger, outcome, count(*)::int as n, sum(duration_ms)::int as ms
        from observations group by 1, 2 order by 1, 2`,
    };
    const before: Record<string, unknown> = {};
    for (const [name, text] of Object.entries(read)) before[name] = await query(text);

    await subject.migrate();

    // Later migrations may add columns (null on old rows): compare the columns of before.
    for (const name of ['changes', 'findings', 'baselines', 'listings']) {
      const was = before[name] as Record<string, unknown>[];
      const now = (await query(read[name as keyof typeof read])) as Record<string, unknown>[];
      const columns = Object.keys(was[0] ?? {});
      const kept = now.map((row) => Object.fromEntries(columns.map((key) => [key, row[key]])));
      expect(kept, name).toEqual(was);
    }
    // Listing spans (what exposure and the timeline are computed from) are the same.
    expect(
      await query(`select server_id, listing_hash, min(started_at) as first, max(last_seen_at) as last
        from observations where outcome = 'ok' group by 1, 2 order by 1, 2`),
    ).toEqual(before['spans']);
    // Every attempt is counted, with its duration, for /metrics.
    expect(
      await query(`select trigger, outcome, sum(count)::int as n, sum(sum_ms)::int as ms
        from observation_counts group by 1, 2 order by 1, 2`),
    ).toEqual(before['attempts']);

    const runs = await query(`select id, server_id, outcome, listing_hash, error_message, count,
        trigger, started_at, last_seen_at, last_poll_at, last_notification_at, last_startup_at,
        last_manual_at, duration_ms, server_info->>'version' as version
      from observations order by id`);
    const t = (minute: number | null) => (minute === null ? null : new Date(at(minute)));
    expect(
      runs.map((run) => [
        Number(run['id']),
        run['outcome'],
        run['listing_hash'] ?? run['error_message'],
        run['count'],
        run['trigger'],
        run['started_at'],
        run['last_seen_at'],
        [
          run['last_poll_at'],
          run['last_notification_at'],
          run['last_startup_at'],
          run['last_manual_at'],
        ],
        run['duration_ms'],
        run['version'],
      ]),
    ).toEqual([
      [1, 'ok', 'h1', 3, 'startup', t(0), t(10), [t(5), t(10), t(0), null], 70, '2'],
      [
        4,
        'error',
        'connect ECONNREFUSED',
        2,
        'poll',
        t(15),
        t(20),
        [t(20), null, null, null],
        4,
        '4',
      ],
      [6, 'error', 'timed out', 1, 'poll', t(25), t(25), [t(25), null, null, null], 30_000, '5'],
      [7, 'ok', 'h1', 1, 'poll', t(30), t(30), [t(30), null, null, null], 55, '6'],
      [8, 'ok', 'h2', 3, 'poll', t(35), t(45), [t(40), null, null, t(45)], 900, '9'],
      [11, 'ok', 'h1', 2, 'notification', t(50), t(55), [t(55), t(50), null, null], 50, '11'],
      [100, 'ok', 'h2', 2, 'poll', t(0), t(5), [t(5), null, null, null], 5, null],
    ]);
    // Each change points at the run of its new listing, which starts at its observation.
    const pointed = await query(`select c.id, o.listing_hash = c.to_hash as same, o.started_at
      from changes c join observations o on o.id = c.observation_id order by c.id`);
    expect(pointed).toEqual([
      { id: pointed[0]!['id'], same: true, started_at: t(35) },
      { id: pointed[1]!['id'], same: true, started_at: t(50) },
    ]);
  });
});
