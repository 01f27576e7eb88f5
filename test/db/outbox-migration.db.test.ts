import { describe, expect, it } from 'vitest';
import { databaseAtMigration } from '../support/migration-subject.js';
import { backend } from '../support/database.js';

/*
 * Migration 0003 turns the single-row outbox of the previous release (one alerts row with
 * its recipients, status and attempts) into deliveries, one per channel and destination.
 * The database is built as that release left it (the migrations before 0003), filled with
 * alerts in every state, then migrated to this release's schema.
 */

const PREVIOUS = '0002_observations_server_ok';

const subject = databaseAtMigration(PREVIOUS);

describe(`migrating the outbox to deliveries (${backend})`, () => {
  it('keeps pending alerts pending, with their recipients, attempts, errors, keys and digests', async () => {
    const { query } = subject;
    await query(
      `insert into servers (id, name, transport, url) values (1, 'fx', 'http', 'http://127.0.0.1:9/mcp')`,
    );
    await query(`insert into listings (hash, body, tool_hashes, tool_count, byte_size)
      values ('h0', '{"tools":[]}', '{}', 0, 12), ('h1', '{"tools":[]}', '{}', 0, 12)`);
    await query(`insert into observations (id, server_id, started_at, duration_ms, trigger, outcome, listing_hash)
      values (1, 1, now(), 5, 'poll', 'ok', 'h1')`);
    for (let id = 1; id <= 6; id++) {
      await query(`insert into changes (id, server_id, previous_change_id, from_hash, to_hash, observation_id, severity)
        values (${id}, 1, ${id === 1 ? 'null' : id - 1}, 'h0', 'h1', 1, 'critical')`);
    }
    await query(`insert into alerts (id, server_id, change_id, severity, status, recipients, message_id, digest_of, attempts, last_error, next_attempt_at, sent_at, acknowledged_at) values
      (1, 1, 1, 'critical', 'pending', '["ops@example.org","owner@example.org"]', '<aaaa-1@mcp-drift>', null, 2, 'ECONNREFUSED: connect', now() + interval '1 hour', null, null),
      (2, 1, 2, 'critical', 'pending', '["ops@example.org","owner@example.org"]', '<aaaa-2@mcp-drift>', 1, 0, null, now(), null, null),
      (3, 1, 3, 'high', 'sent', '["ops@example.org"]', '<aaaa-3@mcp-drift>', null, 1, null, now(), now() - interval '1 day', null),
      (4, 1, 4, 'high', 'failed', '["gone@example.org"]', '<aaaa-4@mcp-drift>', null, 1, '550 mailbox unavailable', now(), null, null),
      (5, 1, 5, 'medium', 'pending', '[]', '<aaaa-5@mcp-drift>', null, 0, null, now(), null, null),
      (6, 1, 6, 'medium', 'acknowledged', '["ops@example.org"]', '<aaaa-6@mcp-drift>', null, 0, null, now(), null, now())`);

    await subject.migrate();

    const rows =
      await query(`select d.id, d.alert_id, d.channel, d.destination, d.status, d.key, d.attempts,
        d.last_error, d.next_attempt_at > now() as later, d.delivered_at is not null as delivered,
        head.alert_id as digest_alert
      from deliveries d left join deliveries head on head.id = d.digest_of
      order by d.alert_id, d.destination`);
    const shown = rows.map((row) => ({
      alert: Number(row['alert_id']),
      to: row['destination'],
      status: row['status'],
      attempts: row['attempts'],
      lastError: row['last_error'],
      later: row['later'],
      delivered: row['delivered'],
      digestOf: row['digest_alert'] === null ? null : Number(row['digest_alert']),
    }));
    expect(shown).toEqual([
      {
        alert: 1,
        to: 'ops@example.org',
        status: 'pending',
        attempts: 2,
        lastError: 'ECONNREFUSED: connect',
        later: true,
        delivered: false,
        digestOf: null,
      },
      {
        alert: 1,
        to: 'owner@example.org',
        status: 'pending',
        attempts: 2,
        lastError: 'ECONNREFUSED: connect',
        later: true,
        delivered: false,
        digestOf: null,
      },
      {
        alert: 2,
        to: 'ops@example.org',
        status: 'pending',
        attempts: 0,
        lastError: null,
        later: false,
        delivered: false,
        digestOf: 1,
      },
      {
        alert: 2,
        to: 'owner@example.org',
        status: 'pending',
        attempts: 0,
        lastError: null,
        later: false,
        delivered: false,
        digestOf: 1,
      },
      {
        alert: 3,
        to: 'ops@example.org',
        status: 'delivered',
        attempts: 1,
        lastError: null,
        later: false,
        delivered: true,
        digestOf: null,
      },
      {
        alert: 4,
        to: 'gone@example.org',
        status: 'failed',
        attempts: 1,
        lastError: '550 mailbox unavailable',
        later: false,
        delivered: false,
        digestOf: null,
      },
      {
        alert: 6,
        to: 'ops@example.org',
        status: 'cancelled',
        attempts: 0,
        lastError: null,
        later: false,
        delivered: false,
        digestOf: null,
      },
    ]);
    expect(rows.every((row) => row['channel'] === 'email')).toBe(true);
    // The first recipient keeps the alert's Message-ID; every key is distinct.
    const keyOf = (alert: number, to: string) =>
      rows.find((row) => Number(row['alert_id']) === alert && row['destination'] === to)!['key'];
    expect(keyOf(1, 'ops@example.org')).toBe('aaaa-1');
    expect(keyOf(3, 'ops@example.org')).toBe('aaaa-3');
    expect(new Set(rows.map((row) => row['key'])).size).toBe(rows.length);

    // Alert 5 had nobody to go to: no delivery, so it shows as undeliverable.
    const alertColumns = await query(`select column_name from information_schema.columns
      where table_name = 'alerts' order by column_name`);
    expect(alertColumns.map((row) => row['column_name'])).toEqual([
      'acknowledged_at',
      'change_id',
      'created_at',
      'id',
      'server_id',
      'severity',
    ]);
    expect(
      await query(
        `select id from alerts where not exists (select 1 from deliveries where alert_id = alerts.id)`,
      ),
    ).toEqual([{ id: expect.anything() }]);
  });
});
