import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RawTool } from '../../src/listings/canonical.js';
import { probe, type ProbeResult, type ProbeSuccess } from '../../src/mcp/index.js';
import { REPO_ROOT } from '../support/mcp-fixtures.js';

// Published servers, run from node_modules/.bin over stdio, against the listings captured
// from them (test/fixtures/listings/). Those captures went through the 1.x SDK client,
// which drops unknown keys, so names and annotations are compared, not whole tools.

const bin = (name: string) => path.join(REPO_ROOT, 'node_modules', '.bin', name);

function captured(file: string): RawTool[] {
  return JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'listings', file), 'utf8'),
  ) as RawTool[];
}

function expectOk(result: ProbeResult): ProbeSuccess {
  if (!result.ok) throw new Error(`probe failed: ${result.code} ${result.reason}`);
  return result;
}

const summary = (tools: RawTool[]) => tools.map((tool) => [tool.name, tool['annotations']]);

describe('probe: published servers over stdio', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'mcp-drift-fs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('lists @modelcontextprotocol/server-everything', async () => {
    const result = expectOk(
      await probe(
        { name: 'everything', transport: 'stdio', command: bin('mcp-server-everything') },
        { env: {}, timeoutMs: 20_000 },
      ),
    );
    expect(summary(result.tools)).toEqual(summary(captured('everything.json')));
    expect(result).toMatchObject({
      era: '2025',
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'mcp-servers/everything', version: '2.0.0' },
      pages: 1,
    });
  });

  it('lists @modelcontextprotocol/server-filesystem on a temporary directory', async () => {
    const result = expectOk(
      await probe(
        {
          name: 'filesystem',
          transport: 'stdio',
          command: bin('mcp-server-filesystem'),
          args: [root],
        },
        { env: {}, timeoutMs: 20_000 },
      ),
    );
    expect(summary(result.tools)).toEqual(summary(captured('filesystem.json')));
    expect(result.tools.find((tool) => tool.name === 'write_file')?.['annotations']).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(result).toMatchObject({
      era: '2025',
      serverInfo: { name: 'secure-filesystem-server', version: '0.2.0' },
      pages: 1,
    });
  });
});
