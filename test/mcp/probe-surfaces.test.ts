import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFirstListing, severityAtLeast } from '../../src/diff/index.js';
import { canonicalListing, extrasOf } from '../../src/listings/canonical.js';
import {
  probe,
  type ConnectSpec,
  type ProbeResult,
  type ProbeSuccess,
} from '../../src/mcp/index.js';
import {
  REPO_ROOT,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';

// Every surface a server advertises is listed on both SDK lines and both eras; one it does
// not advertise is absent (null), never empty (docs/design.md §2).

function expectOk(result: ProbeResult): ProbeSuccess {
  if (!result.ok) throw new Error(`probe failed: ${result.code} ${result.reason}`);
  return result;
}

const PROMPT = {
  name: 'summarize_notes',
  title: 'Summarize notes',
  description: 'Summarizes the notes on a topic.',
  arguments: [{ name: 'topic', description: 'The topic to summarize.', required: true }],
};

describe('probe: prompts, resources, templates and instructions', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'mcp-drift-surfaces-'));
  const surfaces = path.join(folder, 'surfaces.json');
  let sdk1Http: HttpFixture;
  let sdk2Http: HttpFixture;
  beforeAll(async () => {
    writeFileSync(surfaces, '{}');
    [sdk1Http, sdk2Http] = await Promise.all([
      startHttpFixture('sdk1-server.mjs', ['--surfaces', surfaces]),
      startHttpFixture('sdk2-server.mjs', ['--surfaces', surfaces]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([sdk1Http?.stop(), sdk2Http?.stop()]);
    rmSync(folder, { recursive: true, force: true });
  });

  const cases: Array<[string, () => ConnectSpec, '2025' | '2026']> = [
    ['1.x SDK over stdio', () => stdioFixture('sdk1-server.mjs', ['--surfaces', surfaces]), '2025'],
    [
      '1.x SDK over HTTP',
      () => ({ name: 'sdk1', transport: 'http', url: `${sdk1Http.baseUrl}/mcp` }),
      '2025',
    ],
    ['2.x SDK over stdio', () => stdioFixture('sdk2-server.mjs', ['--surfaces', surfaces]), '2026'],
    [
      '2.x SDK over HTTP, 2025 era',
      () => ({ name: 'sdk2', transport: 'http', url: `${sdk2Http.baseUrl}/mcp`, era: '2025' }),
      '2025',
    ],
    [
      '2.x SDK over HTTP, 2026 era',
      () => ({ name: 'sdk2', transport: 'http', url: `${sdk2Http.baseUrl}/mcp` }),
      '2026',
    ],
  ];

  it.each(cases)(
    'lists all five surfaces: %s',
    async (_, spec, era) => {
      const result = expectOk(await probe(spec(), { env: {}, timeoutMs: 20_000 }));
      expect(result.era).toBe(era);
      expect(result.tools.length).toBeGreaterThan(0);
      expect(result.prompts).toEqual([PROMPT]);
      expect(result.resources).toEqual([
        {
          uri: 'notes://readme',
          name: 'readme',
          title: 'Read me',
          description: 'How the notes are organized.',
          mimeType: 'text/plain',
        },
      ]);
      expect(result.resourceTemplates).toEqual([
        {
          name: 'note',
          uriTemplate: 'notes://note/{id}',
          description: 'One note by its id.',
          mimeType: 'text/plain',
        },
      ]);
      expect(result.instructions).toBe('Use search_notes before creating a note.');
      const listing = canonicalListing(result.tools, extrasOf(result));
      expect(Object.keys(listing.surfaceHashes).sort()).toEqual(
        ['instructions', 'prompts', 'resourceTemplates', 'resources', 'tools'].sort(),
      );
    },
    60_000,
  );

  it('records the surfaces a server does not advertise as absent, with no finding', async () => {
    for (const script of ['sdk1-server.mjs', 'sdk2-server.mjs']) {
      const result = expectOk(await probe(stdioFixture(script), { env: {}, timeoutMs: 20_000 }));
      expect(result.capabilities?.prompts, script).toBeUndefined();
      expect(result.capabilities?.resources, script).toBeUndefined();
      expect([
        result.prompts,
        result.resources,
        result.resourceTemplates,
        result.instructions,
      ]).toEqual([null, null, null, null]);
      const listing = canonicalListing(result.tools, extrasOf(result));
      // A tools-only listing: the same hash as before surfaces were recorded.
      expect(listing.hash).toBe(canonicalListing(result.tools).hash);
      expect(checkFirstListing(listing).findings).toEqual([]);
    }
  }, 60_000);

  it('lists @modelcontextprotocol/server-everything with its prompts and resources', async () => {
    const result = expectOk(
      await probe(
        {
          name: 'everything',
          transport: 'stdio',
          command: path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything'),
        },
        { env: {}, timeoutMs: 20_000 },
      ),
    );
    expect(result.prompts?.map((prompt) => prompt['name'])).toEqual([
      'simple-prompt',
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
    ]);
    expect(result.resources?.length).toBeGreaterThan(0);
    expect(result.resources?.every((resource) => typeof resource['uri'] === 'string')).toBe(true);
    expect(result.resourceTemplates?.map((template) => template['uriTemplate'])).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    expect(result.instructions).toMatch(/^# Everything Server/);
    // Its texts are benign: no finding at high or above on first sight.
    const first = checkFirstListing(canonicalListing(result.tools, extrasOf(result)));
    expect(first.findings.filter((f) => severityAtLeast(f.severity, 'high'))).toEqual([]);
  }, 60_000);

  it('lists @modelcontextprotocol/server-memory with its resource and empty templates', async () => {
    const result = expectOk(
      await probe(
        {
          name: 'memory',
          transport: 'stdio',
          command: path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-memory'),
          env: { MEMORY_FILE_PATH: path.join(folder, 'memory.jsonl') },
        },
        { env: {}, timeoutMs: 20_000 },
      ),
    );
    expect(result.prompts).toBeNull();
    expect(result.resources?.map((resource) => resource['uri'])).toEqual([
      'memory://knowledge-graph',
    ]);
    expect(result.resourceTemplates).toEqual([]);
  }, 60_000);
});
