import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../support/cli.js';

// No database anywhere here: help, the version, and bad usage are answered before one opens.
let dir: string;
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: {} });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-help-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every command path of the real program, from its definition: none can be forgotten. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((child) => {
    const own = [...prefix, child.name()];
    return [own, ...commandPaths(child, own)];
  });
}

const program = buildProgram({
  rest: undefined,
  context: () => Promise.reject(new Error('no command runs here')),
});
const paths = commandPaths(program).filter((names) => names.at(-1) !== 'help');
const leaves = paths.filter(
  (names) =>
    names.reduce<Command | undefined>(
      (at, name) => at?.commands.find((child) => child.name() === name),
      program,
    )!.commands.length === 0,
);

describe('mcp-drift help', () => {
  it('knows the commands of design §7', () => {
    expect(paths.map((names) => names.join(' '))).toEqual(
      expect.arrayContaining([
        'serve',
        'migrate',
        'server add',
        'server list',
        'server show',
        'server remove',
        'server enable',
        'server disable',
        'server edit',
        'check',
        'diff',
        'history',
        'changes',
        'change show',
        'alerts list',
        'alerts ack',
        'baseline show',
        'baseline approve',
      ]),
    );
  });

  it.each(paths.map((names) => [names.join(' ')]))(
    '%s --help exits 0 with its usage on stdout',
    async (name) => {
      const names = name.split(' ');
      const result = await cli(...names, '--help');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(new RegExp(`^Usage: mcp-drift ${name} `));
      // `help COMMAND` is the same page.
      const viaHelp = await cli('help', ...names);
      expect(viaHelp.code, viaHelp.stderr).toBe(0);
      expect(viaHelp.stdout).toBe(result.stdout);
    },
  );

  it.each(leaves.map((names) => [names.join(' ')]))(
    '%s --help names its flags and gives an example',
    async (name) => {
      const result = await cli(...name.split(' '), '--help');
      expect(result.stdout).toMatch(/^Options:$/m);
      expect(result.stdout).toMatch(new RegExp(`^Examples:\\n  \\$ mcp-drift ${name}\\b`, 'm'));
      expect(result.stdout).toContain('--verbose');
    },
  );

  it('shows the flags of server add, the stdio convention among them', async () => {
    const { stdout } = await cli('server', 'add', '--help');
    for (const flag of [
      '--stdio',
      '--url <URL>',
      '--transport <KIND>',
      '--header <K=V>',
      '--env <K=V>',
      '--cwd <DIR>',
      '--trust <LEVEL>',
      '--schedule <CRON>',
      '--notify <EMAIL>',
      '--hold',
      '--alert-min-severity <LEVEL>',
      '--json',
    ]) {
      expect(stdout).toContain(`  ${flag}`);
    }
    expect(stdout).toContain('--stdio [options] -- CMD [ARGS…]');
  });

  it('lists every command in the program help, with the exit codes', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const result = await cli(...args);
      expect(result.code).toBe(0);
      for (const name of ['serve', 'migrate', 'server', 'check', 'diff', 'history', 'changes'])
        expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      expect(result.stdout).toContain('3 not found or conflict');
    }
  });

  it('prints the help on stderr and exits 2 without a command, or without a subcommand', async () => {
    for (const args of [[], ['server'], ['alerts']]) {
      const result = await cli(...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^Usage: mcp-drift /);
    }
  });
});

describe('mcp-drift --version', () => {
  it("prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await cli(flag);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });
});

describe('bad usage', () => {
  it.each([
    [['chek', 'fs'], /^mcp-drift: unknown command 'chek' \(did you mean check\?\)/],
    [['help', 'chek'], /^mcp-drift: unknown command 'chek' \(did you mean check\?\)/],
    [['server', 'lsit'], /^mcp-drift: server: unknown command 'lsit' \(did you mean list\?\)/],
    [
      ['baseline', 'aprove', 'fs'],
      /^mcp-drift: baseline: unknown command 'aprove' \(did you mean approve\?\)/,
    ],
    [
      ['check', 'fs', '--fail-onn', 'high'],
      /^mcp-drift: check: unknown option '--fail-onn' \(did you mean --fail-on\?\)/,
    ],
  ])('%j suggests the command meant and exits 2', async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('names the command and its help when commander refuses the arguments', async () => {
    const result = await cli('check', 'fs', 'extra');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "mcp-drift: check: too many arguments for 'check'. Expected 1 argument but got 2; " +
        'see `mcp-drift check --help`\n',
    );
  });

  it('reports every invalid flag value of a call together', async () => {
    const diff = await cli('diff', 'a.json', 'b.json', '--trust', 'blind', '--fail-on', 'severe');
    expect(diff.code).toBe(2);
    expect(diff.stderr.trim()).toBe(
      'mcp-drift: invalid --trust "blind": use one of trusted, partial, untrusted; ' +
        'invalid --fail-on "severe": use one of critical, high, medium, low, info',
    );

    const add = await cli(
      'server',
      'add',
      'bad name',
      '--url',
      'ftp://x',
      '--trust',
      'maybe',
      '--schedule',
      '61 * * * *',
      '--notify',
      'nobody',
      '--alert-min-severity',
      'huge',
    );
    expect(add.code).toBe(2);
    expect(add.stdout).toBe('');
    const problems = add.stderr
      .trim()
      .replace(/^mcp-drift: /, '')
      .split('; invalid ');
    expect(problems).toHaveLength(6);
    expect(add.stderr).toContain('invalid server name "bad name"');
    expect(add.stderr).toContain('invalid --url "ftp://x"');
    expect(add.stderr).toContain('invalid --trust "maybe"');
    expect(add.stderr).toContain(
      'invalid --schedule "61 * * * *": the minute field "61" is out of range or malformed: allowed 0-59',
    );
    expect(add.stderr).toContain('invalid --notify "nobody"');
    expect(add.stderr).toContain('invalid --alert-min-severity "huge"');

    const alerts = await cli('alerts', 'list', '--status', 'lost', '--limit', '0');
    expect(alerts.code).toBe(2);
    expect(alerts.stderr).toContain('invalid --status "lost"');
    expect(alerts.stderr).toContain('invalid --limit "0"');
  });

  it('says to put -- before a stdio command given without it', async () => {
    const add = await cli('server', 'add', 'nope', '--stdio', 'no-such-binary', 'serve');
    expect(add.code).toBe(2);
    expect(add.stderr).toBe(
      'mcp-drift: server add: "no-such-binary serve" looks like a stdio server\'s command: put -- before it, as in `mcp-drift server add NAME --stdio -- CMD [ARGS…]`; see `mcp-drift server add --help`\n',
    );
    expect(add.stderr).not.toContain('too many arguments');
    const flag = await cli('server', 'edit', 'fs', '--stdio', 'npx', '-y', 'pkg');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '-y'");
    expect(flag.stderr).toContain('put -- before the command');
  });

  it('names the cron field that is wrong and its range', async () => {
    const url = ['--url', 'http://127.0.0.1:9/mcp'];
    const edit = await cli('server', 'add', 'web', ...url, '--schedule', '0 24 * * *');
    expect(edit.code).toBe(2);
    expect(edit.stderr).toContain('the hour field "24" is out of range or malformed: allowed 0-23');
    const fields = await cli('server', 'add', 'web', ...url, '--schedule', '*/5 * *');
    expect(fields.code).toBe(2);
    expect(fields.stderr).toContain('"*/5 * *": has 3 fields; give 5');
  });

  it('takes a command line after -- only for server add and edit', async () => {
    const result = await cli('diff', 'a.json', 'b.json', '--', 'node');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^mcp-drift: diff: nothing follows -- here/);
  });

  it('accepts --verbose among the flags of a subcommand', async () => {
    // An unreachable database makes the command fail after parsing: the flags were taken.
    // What follows -- reaching the server is in server-registry.db.test.ts.
    const result = await runCli(
      ['server', 'add', 'x', '--verbose', '--stdio', '--', 'node', 'server.js', '--verbose'],
      { cwd: dir, env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing' } },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^mcp-drift: cannot reach PostgreSQL at 127\.0\.0\.1:1\/nothing/);
  });
});
