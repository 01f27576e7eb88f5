import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMain, runCli } from '../support/cli.js';

let dir: string;
const file = (name: string) => path.join(dir, name);
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: dir, env, spawn: true });

/** 400 real tools (filesystem.json, renamed) that all turn read-only: over 1 MB of findings. */
const TOOL_COUNT = 400;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-json-'));
  const real = JSON.parse(
    readFileSync(path.resolve('test/fixtures/listings/filesystem.json'), 'utf8'),
  ) as { name: string; annotations?: Record<string, unknown> }[];
  const writing = real.find((tool) => tool.name === 'write_file')!;
  const before = Array.from({ length: TOOL_COUNT }, (_, index) => ({
    ...writing,
    name: `write_file_${index}`,
  }));
  const after = before.map((tool) => ({
    ...tool,
    annotations: { ...tool.annotations, readOnlyHint: true },
  }));
  writeFileSync(file('before.json'), JSON.stringify({ tools: before }));
  writeFileSync(file('after.json'), JSON.stringify({ tools: after }));
  writeFileSync(file('small.json'), JSON.stringify({ tools: before.slice(0, 1) }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The CLI's stdout piped into another process, as in `mcp-drift … --json | jq`: the reader
 * takes the pipe a chunk per event-loop turn, and reports how many bytes it got and the
 * document they parse as (null when they do not).
 */
async function pipedIntoReader(
  args: string[],
): Promise<{ bytes: number; document: unknown; code: number | null }> {
  const reader = spawn(
    process.execPath,
    [
      '-e',
      `const chunks = [];
      process.stdin.on('data', (chunk) => {
        chunks.push(chunk);
        process.stdin.pause();
        setImmediate(() => process.stdin.resume());
      });
      process.stdin.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let document = null;
        try { document = JSON.parse(text); } catch {}
        process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), document }));
      });`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  // The CLI writes into the reader's stdin itself; this process keeps no end of that pipe,
  // so the reader sees the end of input when the CLI exits.
  const child = spawn(process.execPath, [cliMain, ...args], {
    cwd: dir,
    stdio: ['ignore', reader.stdin!, 'inherit'],
  });
  reader.stdin!.destroy();
  let out = '';
  reader.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = await Promise.all([
    new Promise<number | null>((resolve) => child.once('close', resolve)),
    new Promise((resolve) => reader.once('close', resolve)),
  ]);
  return { ...(JSON.parse(out) as { bytes: number; document: unknown }), code };
}

describe('--json output', () => {
  it('reaches a reader whole when it is over 1 MB and stdout is a pipe (issue 12, defect 8)', async () => {
    const { bytes, document, code } = await pipedIntoReader([
      'diff',
      file('before.json'),
      file('after.json'),
      '--json',
    ]);
    expect(code).toBe(0);
    expect(bytes).toBeGreaterThan(1024 * 1024);
    const { severity, findings } = document as { severity: string; findings: { tool: string }[] };
    expect(severity).toBe('critical');
    const tools = new Set(findings.map((finding) => finding.tool));
    expect(tools.size).toBe(TOOL_COUNT);
  });

  it('prints a JSON error document on stdout, and the message on stderr, when the command fails', async () => {
    const missing = await cli(['diff', file('missing.json'), file('after.json'), '--json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^mcp-drift: cannot read .*missing\.json: no such file\n$/);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message: `cannot read ${file('missing.json')}: no such file`,
      },
    });

    const usage = await cli(['check', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({
      error: {
        code: 'USAGE',
        message: "check: missing required argument 'NAME'; see `mcp-drift check --help`",
      },
    });

    const unreachable = await cli(['server', 'list', '--json'], {
      DATABASE_URL: 'postgres://nobody:s3cret-pass@127.0.0.1:1/nothing',
    });
    expect(unreachable.code).toBe(4);
    const { error } = JSON.parse(unreachable.stdout) as {
      error: { code: string; message: string };
    };
    expect(error.code).toBe('DATABASE_UNREACHABLE');
    expect(error.message).toContain('127.0.0.1:1/nothing');
    expect(unreachable.stdout + unreachable.stderr).not.toContain('s3cret-pass');
  });

  it('prints only the data document when --fail-on is reached', async () => {
    const result = await cli([
      'diff',
      file('small.json'),
      file('after.json'),
      '--json',
      '--fail-on',
      'low',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('mcp-drift: severity critical reaches --fail-on low');
    expect(JSON.parse(result.stdout)).toMatchObject({ severity: 'critical' });
  });

  it('prints no JSON without --json', async () => {
    const result = await cli(['diff', file('missing.json'), file('after.json')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});
