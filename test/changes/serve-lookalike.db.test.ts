import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFeed, showChange } from '../../src/changes/change-views.js';
import { checkServer } from '../../src/changes/check-server.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { startService, type RunningService } from '../../src/service.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';

/*
 * Cross-server shadowing by a look-alike name under the service: two registered servers,
 * one listing `send_email`, the other the same tool as "sеnd_email" with a Cyrillic е. The
 * first is checked before the service starts, so that when the service records the second
 * one's first listing the other server's tools are there to compare against.
 */

/** "send_email" with a Cyrillic е (U+0435) in place of the Latin e. */
const LOOKALIKE = 's\u0435nd_email';
const logger = createLogger('silent');

let database: TestDatabase;
let handle: DatabaseHandle;
let mail: HttpFixture;
let notes: HttpFixture;
let config: Config;
let service: RunningService | undefined;

async function add(name: string, fixture: HttpFixture) {
  return insertServer(handle.db, {
    name,
    transport: 'http',
    command: null,
    args: [],
    env: {},
    cwd: null,
    url: `${fixture.baseUrl}/mcp`,
    headers: {},
    trust: 'trusted',
    schedule: '0 0 1 1 *',
    notify: [],
    slackUrl: null,
    webhookUrl: null,
    hold: false,
    alertMinSeverity: null,
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  mail = await startHttpFixture('sdk1-server.mjs');
  notes = await startHttpFixture('sdk1-server.mjs', ['--email-tool', LOOKALIKE]);
  config = loadConfig({ ...database.env, HTTP_PORT: '0' });
});
afterAll(async () => {
  await service?.stop();
  await notes?.stop();
  await mail?.stop();
  await handle?.close();
  await database?.drop();
});

describe(`a look-alike of another server's tool under the service (${backend})`, () => {
  it('records tool_shadowing at high naming both servers and both tools', async () => {
    await add('mail', mail);
    await checkServer(handle.db, 'mail', {
      config,
      env: {},
      signal: new AbortController().signal,
      logger,
    });
    const notesRow = await add('notes', notes);

    service = await startService({ config, env: {}, db: handle, logger });
    const recorded = await service.events.next(
      'change-recorded',
      (event) => event.serverId === notesRow.id,
      { past: true, timeoutMs: 60_000 },
    );
    expect(recorded.severity).toBe('high');
    const { change, findings } = await showChange(handle.db, recorded.changeId);
    expect(change).toMatchObject({ fromHash: null, severity: 'high' });
    const shadowing = findings.filter((f) => f.kind === 'tool_shadowing');
    expect(shadowing.map(({ tool, severity, field }) => ({ tool, severity, field }))).toEqual([
      { tool: LOOKALIKE, severity: 'high', field: 'name' },
    ]);
    const text = shadowing[0]!.explanation;
    expect(text).toContain(`on server notes`);
    expect(text).toContain(LOOKALIKE);
    expect(text).toContain('send_email (server mail)');
    // The plain server's startup listing is the one check stored: no change.
    await service.events.next('observation-recorded', (event) => event.server === 'mail', {
      past: true,
      timeoutMs: 60_000,
    });
    expect((await changeFeed(handle.db, { server: 'mail', limit: 10 })).changes).toEqual([]);
  });
});
