import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { fixturePath } from '../support/mcp-fixtures.js';

/*
 * `baseline approve --hash` approves the listing that was reviewed or nothing: a latest
 * listing other than the hash given is refused (exit 3, CONFLICT) and leaves the baseline as
 * it was. Without --hash the latest is approved and its whole hash printed.
 */

let database: TestDatabase;
const node = process.execPath;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });
const stdio = (variant: string) => [
  '--stdio',
  '--',
  node,
  fixturePath('sdk1-server.mjs'),
  '--variant',
  variant,
];
/** The hashes of the listings `check` recorded: the base one, then the relaxed one. */
const hashes = { base: '', relaxed: '' };

async function checked(): Promise<string> {
  const result = await cli('check', 'notes', '--json');
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { observation: { listingHash: string } }).observation
    .listingHash;
}

async function baseline(): Promise<{ hash: string; approvedBy: string }> {
  const shown = await cli('baseline', 'show', 'notes', '--json');
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout) as { hash: string; approvedBy: string };
}

beforeAll(async () => {
  database = await createTestDatabase();
  expect((await cli('server', 'add', 'notes', '--trust', 'trusted', ...stdio('base'))).code).toBe(
    0,
  );
  hashes.base = await checked();
  expect((await cli('server', 'edit', 'notes', ...stdio('relaxed'))).code).toBe(0);
  hashes.relaxed = await checked();
  expect(hashes.relaxed).not.toBe(hashes.base);
});
afterAll(async () => {
  await database?.drop();
});

describe(`baseline approve --hash (${backend})`, () => {
  it('refuses a hash that is not the latest listing, naming the latest, and changes nothing', async () => {
    const before = await baseline();
    expect(before).toMatchObject({ hash: hashes.base, approvedBy: 'first-listing' });

    const refused = await cli('baseline', 'approve', 'notes', '--hash', hashes.base, '--yes');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(hashes.relaxed);
    expect(refused.stderr).toMatch(/nothing was approved/);
    expect(refused.stdout).toBe('');

    const json = await cli(
      'baseline',
      'approve',
      'notes',
      '--hash',
      hashes.base.slice(0, 12),
      '--yes',
      '--json',
    );
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'CONFLICT' } });

    expect(await baseline()).toEqual(before);
  });

  it('refuses --hash with --listing, and a hash that is not hex', async () => {
    const both = await cli(
      'baseline',
      'approve',
      'notes',
      '--hash',
      hashes.relaxed,
      '--listing',
      hashes.base,
      '--yes',
    );
    expect(both.code).toBe(2);
    const bad = await cli('baseline', 'approve', 'notes', '--hash', 'latest', '--yes');
    expect(bad.code).toBe(2);
    expect((await baseline()).hash).toBe(hashes.base);
  });

  it('approves the latest listing when it is the hash given', async () => {
    const approved = await cli(
      'baseline',
      'approve',
      'notes',
      '--hash',
      hashes.relaxed.slice(0, 16),
      '--yes',
      '--json',
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).approved.hash).toBe(hashes.relaxed);
    expect(await baseline()).toMatchObject({ hash: hashes.relaxed, approvedBy: 'operator' });
  });

  it('without --hash approves the latest listing and prints its whole hash', async () => {
    expect((await cli('server', 'edit', 'notes', ...stdio('base'))).code).toBe(0);
    expect(await checked()).toBe(hashes.base);
    const approved = await cli('baseline', 'approve', 'notes', '--yes');
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`baseline is now ${hashes.base}`);
    expect((await baseline()).hash).toBe(hashes.base);
  });
});
