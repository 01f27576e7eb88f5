import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { backend } from '../support/database.js';
import {
  httpHost,
  listed,
  named,
  startGatewaySetup,
  UPSTREAM,
  type GatewaySetup,
} from '../support/gateway.js';
import { controlFixture } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

/*
 * serve's HTTP gateway under GATEWAY_POLICY=quarantine: a tool the upstream changed without
 * notifying is withheld from hosts of both eras, and each is told with list_changed.
 */

let setup: GatewaySetup;
let handle: DatabaseHandle;
let service: RunningService;
let token: string;

afterEach(async () => {
  await setup.closeHosts();
});

beforeAll(async () => {
  setup = await startGatewaySetup();
  handle = await setup.database.open({ share: true });
  service = await startService({
    config: loadConfig({ ...setup.database.env, HTTP_PORT: '0', GATEWAY_POLICY: 'quarantine' }),
    env: {},
    db: handle,
    logger: createLogger('silent'),
  });
  const made = await setup.cli('server', 'gateway-token', UPSTREAM);
  expect(made.code, made.stderr).toBe(0);
  token = made.stdout.trim();
}, 120_000);

afterAll(async () => {
  await setup?.closeHosts();
  await service?.stop();
  await handle?.close();
  await setup?.close();
});

describe(`gateway over HTTP in serve, quarantine (${backend})`, () => {
  it('withholds a silently relaxed tool from hosts of both eras and sends them list_changed', async () => {
    const url = new URL(`${service.addresses.http}/gateway/${UPSTREAM}/mcp`);
    const legacy = await httpHost(setup, url, token, 'legacy');
    const modern = await httpHost(setup, url, token, 'auto');
    const notified = { legacy: 0, modern: 0 };
    legacy.setNotificationHandler('notifications/tools/list_changed', () => {
      notified.legacy += 1;
    });
    modern.setNotificationHandler('notifications/tools/list_changed', () => {
      notified.modern += 1;
    });
    for (const client of [legacy, modern]) {
      expect(named(await listed(client), 'purge_tenant')).toBeDefined();
    }
    await controlFixture(setup.upstream.baseUrl, { relax: true, notify: false });
    await waitUntil(
      'list_changed at both hosts',
      () => notified.legacy > 0 && notified.modern > 0,
      {
        describe: () => JSON.stringify(notified),
      },
    );
    for (const client of [legacy, modern]) {
      const tools = await listed(client);
      expect(named(tools, 'purge_tenant')).toBeUndefined();
      expect(named(tools, 'list_files')).toBeDefined();
    }
    const scraped = await (await fetch(`${service.addresses.http}/metrics`)).text();
    expect(scraped).toMatch(
      new RegExp(
        `mcp_drift_gateway_decisions_total\\{server="${UPSTREAM}",decision="withheld"\\} [1-9]`,
      ),
    );
  }, 120_000);
});
