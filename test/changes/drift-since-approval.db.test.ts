import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { listAlerts } from '../../src/alerts/alerts-repo.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { ChangeRow, ServerRow } from '../../src/db/schema.js';
import { ChannelDispatcher, DEFAULT_DISPATCHER_OPTIONS } from '../../src/delivery/dispatcher.js';
import { createEmailChannel } from '../../src/delivery/email-channel.js';
import { createSmtpSender } from '../../src/delivery/smtp-sender.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { runCli } from '../support/cli.js';
import { startConsoleServer } from '../support/console-server.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, withHints } from '../support/probe-results.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { waitUntil } from '../support/wait.js';

/*
 * Drift since approval (docs/design.md §4): five small changes after an approval, none of
 * them critical alone, one of them a relaxation split into a description edit and a later
 * annotation flip. `baseline diff` grades the whole drift as one change: critical. The
 * alert of the flip, read back from a real SMTP server, says so beside its own severity.
 */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const logger = createLogger('silent');

function edit(tools: RawTool[], name: string, change: (tool: RawTool) => RawTool): RawTool[] {
  return tools.map((tool) => (tool.name === name ? change(tool) : tool));
}

const STEPS: Array<(tools: RawTool[]) => RawTool[]> = [
  // 1. The description of a tool that writes: harmless alone.
  (tools) =>
    edit(tools, 'add_observations', (tool) => ({
      ...tool,
      description: `${tool.description as string}. Existing observations are kept.`,
    })),
  // 2. A new read-only tool.
  (tools) => [
    ...tools,
    {
      name: 'count_entities',
      description: 'Count the entities in the knowledge graph',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ],
  // 3. A title.
  (tools) => edit(tools, 'create_relations', (tool) => ({ ...tool, title: 'Create relations' })),
  // 4. The flip: the same tool now claims to be idempotent (hosts may retry it).
  (tools) => withHints(tools, 'add_observations', { idempotentHint: true }),
  // 5. Another description.
  (tools) =>
    edit(tools, 'search_nodes', (tool) => ({
      ...tool,
      description: `${tool.description as string} (names and types)`,
    })),
];

let database: TestDatabase;
let handle: DatabaseHandle;
let smtp: TestSmtpServer;
let server: ServerRow;
const recorded: ChangeRow[] = [];

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

function observe(tools: RawTool[]) {
  return recordObservation(handle.db, {
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
    alerts: emailOnlyPolicy(['ops@example.org']),
  });
}

interface DriftJson {
  severity: string;
  atBaseline: boolean;
  baseline: { hash: string; approvedBy: string };
  latest: { hash: string };
  findings: { tool: string | null; kind: string; field?: string; severity: string }[];
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  smtp = await startSmtpServer();
  server = await insertServer(handle.db, {
    name: 'memory',
    transport: 'http',
    command: null,
    args: [],
    env: {},
    cwd: null,
    url: 'http://127.0.0.1:9/mcp',
    headers: {},
    trust: 'trusted',
    schedule: null,
    notify: [],
    slackUrl: null,
    webhookUrl: null,
    hold: false,
    alertMinSeverity: null,
  });
  await observe(memory);
  const approved = await cli('baseline', 'approve', 'memory', '--yes');
  expect(approved.code, approved.stderr).toBe(0);
  let tools = memory;
  for (const step of STEPS) {
    tools = step(tools);
    const change = (await observe(tools)).change;
    expect(change).not.toBeNull();
    recorded.push(change!.row);
  }
});
afterAll(async () => {
  await smtp?.close();
  await handle?.close();
  await database?.drop();
});

describe(`drift since approval (${backend})`, () => {
  it('records five changes, none of them critical alone', () => {
    expect(recorded.map((change) => change.severity)).toEqual([
      'low',
      'low',
      // A title alone is info; the listing changed without a new server version: low.
      'low',
      'high',
      'low',
    ]);
    // The first starts from the approved listing: no drift beyond itself to record.
    expect(recorded[0]!.sinceBaseline).toBeNull();
    expect(recorded[3]!.sinceBaseline).toMatchObject({ severity: 'critical', findings: 4 });
  });

  it('baseline diff grades the five as one critical change, with every finding', async () => {
    const json = await cli('baseline', 'diff', 'memory', '--json');
    expect(json.code, json.stderr).toBe(0);
    const drift = JSON.parse(json.stdout) as DriftJson;
    expect(drift.severity).toBe('critical');
    expect(drift.atBaseline).toBe(false);
    expect(drift.baseline.approvedBy).toBe('operator');
    expect(drift.latest.hash).toBe(recorded.at(-1)!.toHash);
    expect(
      drift.findings.map((finding) => [finding.tool, finding.kind, finding.field ?? null]),
    ).toEqual(
      expect.arrayContaining([
        ['add_observations', 'annotation_relaxed', 'idempotentHint'],
        ['add_observations', 'description_changed', 'description'],
        ['count_entities', 'tool_added', null],
        ['create_relations', 'title_changed', 'title'],
        ['search_nodes', 'description_changed', 'description'],
      ]),
    );
    expect(drift.findings).toHaveLength(5);
    // The relaxation is escalated by the description edit made four changes before it.
    expect(drift.findings[0]).toMatchObject({
      tool: 'add_observations',
      kind: 'annotation_relaxed',
      severity: 'critical',
    });

    const text = await cli('baseline', 'diff', 'memory');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Graded as one change: CRITICAL');
    expect(text.stdout).toMatch(/^add_observations \(critical\)$/m);
    expect(text.stdout).toContain('Severity: critical. 5 findings on 4 tools');
  });

  it('shows the drift since approval on the server page and the change page', async () => {
    const token = 'console-test-token-drift-0123456789';
    const { http, live } = await startConsoleServer(handle.db, { token, logger });
    try {
      const login = await fetch(`${http.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: http.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, name: 'Ada', next: '/' }).toString(),
      });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = async (path: string) => {
        const answer = await fetch(`${http.url}${path}`, { headers: { cookie } });
        expect(answer.status).toBe(200);
        return answer.text();
      };
      const server = await page('/servers/memory');
      const drift = server.slice(server.indexOf('id="drift-heading"'));
      expect(drift).toMatch(
        /^id="drift-heading">\s*Drift since approval <span class="sev sev-critical">critical<\/span>/,
      );
      expect(drift).toContain('graded as one change: 5 findings');
      expect(drift).toContain('count_entities');

      const flip = await page(`/changes/${recorded[3]!.id}`);
      expect(flip).toContain('<dt>drift since approval</dt>');
      expect(flip).toMatch(
        /<dd><span class="sev sev-critical">critical<\/span> from the approved baseline/,
      );
      const first = await page(`/changes/${recorded[0]!.id}`);
      expect(first).not.toContain('drift since approval');

      const api = await fetch(`${http.url}/api/v1/servers/memory`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const detail = (await api.json()) as { driftSinceApproval: { severity: string } };
      expect(detail.driftSinceApproval.severity).toBe('critical');
    } finally {
      live.stop();
      await http.close();
    }
  });

  it('says nothing has drifted once the latest listing is approved', async () => {
    const approved = await cli('baseline', 'approve', 'memory', '--yes');
    expect(approved.code, approved.stderr).toBe(0);
    const drift = JSON.parse(
      (await cli('baseline', 'diff', 'memory', '--json')).stdout,
    ) as DriftJson;
    expect(drift).toMatchObject({ severity: 'none', atBaseline: true, findings: [] });
  });

  it('mails the alert of the flip with the severity since approval', async () => {
    const alerts = (await listAlerts(handle.db, { limit: 100 })).filter(
      (row) => row.serverId === server.id,
    );
    // Only the high change reached the email threshold (medium).
    expect(alerts.map((row) => row.changeId)).toEqual([recorded[3]!.id]);
    const dispatcher = new ChannelDispatcher({
      db: handle.db,
      channel: createEmailChannel(createSmtpSender(smtp.url), 'mcp-drift@example.org'),
      logger,
      options: { ...DEFAULT_DISPATCHER_OPTIONS, maxAttempts: 10, retryBaseMs: 200, pollMs: 50 },
    });
    dispatcher.start();
    try {
      await waitUntil('the alert email', () => smtp.received.length > 0);
    } finally {
      await dispatcher.stop();
    }
    const { mail } = smtp.received[0]!;
    expect(mail.subject).toMatch(/^\[mcp-drift\] HIGH memory: /);
    expect(mail.text).toMatch(
      /Since approval: CRITICAL: since the approved baseline [0-9a-f]{12}, the listing has drifted by 4 findings graded CRITICAL as one change, higher than this alert's HIGH; see mcp-drift baseline diff memory/,
    );
    expect(mail.html).toContain('Since approval');
    expect(mail.html).toContain('mcp-drift baseline diff memory');
  });
});
