import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMain } from '../support/cli.js';
import { fixturePath } from '../support/mcp-fixtures.js';

// Each command loads what it uses. The modules a run resolves are logged by a loader hook
// (test/support/module-log.mjs); a file of the bundle stands for the sources it holds
// (dist/cli/bundle-inputs.json, written by scripts/build.mjs); what a command must not
// load is named here.
const hook = fileURLToPath(new URL('../support/module-log.mjs', import.meta.url));
const listings = path.resolve('test/fixtures/listings');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-modules-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files a run of the CLI resolved, as the loader hook logged them. */
function urlsLoadedBy(args: string[], env: Record<string, string>): string[] {
  const log = path.join(dir, `${args.join('_').replace(/\W+/g, '_')}.log`);
  const result = spawnSync(process.execPath, ['--import', hook, cliMain, ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      MCP_DRIFT_HOME: path.join(dir, 'home'),
      MODULE_LOG: log,
      ...env,
    },
    encoding: 'utf8',
  });
  expect(result.error).toBeUndefined();
  const urls = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((url) => url.startsWith('file:'));
  return [...new Set(urls)];
}

/** The sources a run loaded: a file of the bundle stands for the sources it holds. */
function modulesLoadedBy(args: string[], env: Record<string, string> = {}): string[] {
  const bundle = JSON.parse(
    readFileSync(path.join(path.dirname(cliMain), 'bundle-inputs.json'), 'utf8'),
  ) as Record<string, string[]>;
  const sources = urlsLoadedBy(args, env).flatMap((url) => {
    const file = fileURLToPath(url);
    const inBundle =
      path.dirname(file) === path.dirname(cliMain) ? bundle[path.basename(file)] : undefined;
    return inBundle ? inBundle.map((source) => `/${source}`) : [url];
  });
  return [...new Set(sources)];
}

const PGLITE = /node_modules\/@electric-sql\//;
const POSTGRES_DRIVER = /node_modules\/postgres\//;
const DRIZZLE = /node_modules\/drizzle-orm\//;
const MCP_SDK = /node_modules\/@modelcontextprotocol\//;
const MAILER = /node_modules\/nodemailer\//;
// The service's loops; the repositories of its tables are read by `server list` too.
const WATCH = /\/src\/watch\/(?!.*-repo\.ts$)/;
const COMMANDER = /node_modules\/commander\//;
const CONFIG = /node_modules\/dotenv\/|\/src\/config\//;
const ZOD = /node_modules\/zod\//;
const LOGGER = /node_modules\/pino\//;
const CRON = /node_modules\/node-cron\//;
const DIFF_ENGINE = /\/src\/diff\/(diff-listings|catalogue|format-text)\.ts/;

function expectNone(modules: string[], patterns: RegExp[]): void {
  for (const pattern of patterns) {
    expect(
      modules.filter((url) => pattern.test(url)),
      String(pattern),
    ).toEqual([]);
  }
}

describe('commands load only what they use', () => {
  it.each([
    ['--help'],
    ['--version'],
    ['server', 'add', '--help'],
    ['help', 'check'],
    ['server', 'add', 'web', '--help'],
  ])('%s loads commander and the program, and nothing else of weight', (...args) => {
    const modules = modulesLoadedBy(args);
    expect(modules).toContain('/src/cli/program.ts');
    expect(modules.some((source) => COMMANDER.test(source))).toBe(true);
    expectNone(modules, [PGLITE, POSTGRES_DRIVER, DRIZZLE, MCP_SDK, MAILER, WATCH, CONFIG, LOGGER]);
  });

  it('diff loads the diff engine and no database, SDK, mailer or watch service', () => {
    const modules = modulesLoadedBy([
      'diff',
      path.join(listings, 'everything.json'),
      path.join(listings, 'filesystem.json'),
    ]);
    expect(modules).toContain('/src/diff/diff-listings.ts');
    expectNone(modules, [PGLITE, POSTGRES_DRIVER, DRIZZLE, MCP_SDK, MAILER, WATCH]);
  });

  it('lock and verify with --config load the SDK and no database driver, drizzle, mailer or watch service', () => {
    writeFileSync(
      path.join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          notes: {
            command: process.execPath,
            args: [fixturePath('sdk1-server.mjs'), '--transport', 'stdio'],
          },
        },
      }),
    );
    for (const args of [
      ['lock', '--config', '.mcp.json'],
      ['verify', '--config', '.mcp.json', '--format', 'sarif'],
    ]) {
      const modules = modulesLoadedBy(args);
      expect(modules.some((url) => MCP_SDK.test(url))).toBe(true);
      expectNone(modules, [PGLITE, POSTGRES_DRIVER, DRIZZLE, MAILER, WATCH]);
    }
    expect(existsSync(path.join(dir, 'home'))).toBe(false);
  });

  it('server list on PostgreSQL loads its driver, not PGlite, the SDK, the mailer, the watch service or the logger', () => {
    // Unreachable on purpose: the modules are loaded before the connection is tried.
    const modules = modulesLoadedBy(['server', 'list'], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing',
    });
    expect(modules.some((url) => POSTGRES_DRIVER.test(url))).toBe(true);
    expectNone(modules, [PGLITE, MCP_SDK, MAILER, WATCH, ZOD, LOGGER, CRON, DIFF_ENGINE]);
  });

  it('a database command that logs loads the logger then', () => {
    // migrate logs what it applied; on an unreachable database it fails before, so the
    // logger is taken here from a run that succeeds, on the embedded database.
    expect(modulesLoadedBy(['migrate']).some((source) => LOGGER.test(source))).toBe(true);
    // Opening PGlite compiles its WebAssembly: tens of seconds on a busy 2-core machine.
  }, 120_000);
});
