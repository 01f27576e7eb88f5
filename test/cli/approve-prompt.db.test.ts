import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runCli, spawnCliInTerminal, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

/*
 * `baseline approve` and `server remove` on a terminal (a pseudo-terminal from `script`): the
 * summary first, then a question that waits; y goes ahead, n changes nothing. Without a
 * terminal they need --yes.
 */

let database: TestDatabase;
const node = process.execPath;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });

/** Runs in a pseudo-terminal; answers `answer` once the question is on screen. */
async function answered(
  args: string[],
  answer: string,
): Promise<{ code: number | null; screen: string }> {
  const child: ChildProcess = spawnCliInTerminal(args, { env: database.env, cwd: database.dir });
  let screen = '';
  child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  await waitUntil('the question', () => /\[y\/N\]/.test(screen), { describe: () => screen });
  // Nothing is decided while the question waits.
  expect(screen).not.toMatch(/approved|removed server/i);
  child.stdin!.write(`${answer}\n`);
  return { code: await exited(child), screen };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const stdio = (variant?: string) => [
    '--stdio',
    '--',
    node,
    fixturePath('sdk1-server.mjs'),
    ...(variant ? ['--variant', variant] : []),
  ];
  expect((await cli('server', 'add', 'notes', '--trust', 'trusted', ...stdio())).code).toBe(0);
  expect((await cli('check', 'notes')).code).toBe(0);
  expect((await cli('server', 'edit', 'notes', ...stdio('relaxed'))).code).toBe(0);
  expect((await cli('check', 'notes')).code).toBe(0);
});
afterAll(async () => {
  await database?.drop();
});

describe(`confirmations on a terminal (${backend})`, () => {
  it('baseline approve shows the previous baseline and the accepted findings, and n changes nothing', async () => {
    const before = JSON.parse((await cli('baseline', 'show', 'notes', '--json')).stdout) as {
      hash: string;
    };
    const { code, screen } = await answered(['baseline', 'approve', 'notes'], 'n');
    expect(code).toBe(1);
    expect(screen).toContain(before.hash.slice(0, 12));
    expect(screen).toMatch(/critical/);
    expect(screen).toMatch(/delete_note/);
    expect(screen).toContain('not confirmed; nothing was changed');
    const after = JSON.parse((await cli('baseline', 'show', 'notes', '--json')).stdout) as {
      hash: string;
    };
    expect(after.hash).toBe(before.hash);
  });

  it('baseline approve goes ahead on y', async () => {
    const { code, screen } = await answered(['baseline', 'approve', 'notes'], 'y');
    expect(code, screen).toBe(0);
    const after = JSON.parse((await cli('baseline', 'show', 'notes', '--json')).stdout) as {
      approvedBy: string;
    };
    expect(after.approvedBy).toBe('operator');
  });

  it('without a terminal needs --yes', async () => {
    const refused = await cli('baseline', 'approve', 'notes');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    const removal = await cli('server', 'remove', 'notes');
    expect(removal.code).toBe(2);
    expect(removal.stderr).toMatch(/--yes/);
  });

  it('server remove says how much history goes with it, and asks', async () => {
    const kept = await answered(['server', 'remove', 'notes'], 'n');
    expect(kept.code).toBe(1);
    expect(kept.screen).toMatch(/\d+ observations?, \d+ changes? and \d+ alerts?/);
    expect((await cli('server', 'show', 'notes')).code).toBe(0);

    const gone = await answered(['server', 'remove', 'notes'], 'y');
    expect(gone.code, gone.screen).toBe(0);
    expect((await cli('server', 'show', 'notes')).code).toBe(3);
  });
});
