import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cliMain, exited, runCli, waitForOutput } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * `npm start` as a person sees it: serve in a pseudo-terminal (util-linux `script`), where
 * stdout and stderr are a terminal, as they are in one; and piped, as a program reads it.
 */

let database: TestDatabase;
const options = () => ({ env: database.env, cwd: database.dir });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const CONSOLE_LINE =
  /^console: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]{43}) \(a login link [^\n]*\)$/;

async function stopIfRunning(serve: RunningServe): Promise<void> {
  if (serve.child.exitCode === null && serve.child.signalCode === null) {
    expect((await serve.stop()).code).toBe(0);
  }
}

interface TerminalServe {
  script: ChildProcess;
  screen(): string;
  lines(): string[];
  stop(): Promise<number | null>;
}

/** serve inside `script -qefc`: its stdout and stderr are the pseudo-terminal. */
async function startInTerminal(): Promise<TerminalServe> {
  const script = spawn(
    'script',
    ['-qefc', `exec ${quote(process.execPath)} ${quote(cliMain)} serve`, '/dev/null'],
    { cwd: database.dir, env: childEnv(database.env), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let screen = '';
  script.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  // The warning that nobody is told comes just after the start line.
  await waitForOutput(script.stdout!, /WARN {2}alerts: no alert destination/, 60_000);
  const lines = () => screen.split(/\r?\n/).filter((line) => line !== '');
  return {
    script,
    screen: () => screen,
    lines,
    async stop() {
      // `exec`: script's one child is serve itself; script exits with its status (-e).
      const [serve] = execFileSync('pgrep', ['-P', String(script.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n');
      process.kill(Number(serve), 'SIGTERM');
      return exited(script);
    },
  };
}

describe.runIf(existsSync('/usr/bin/script'))(`serve on a terminal (${backend})`, () => {
  it('prints readable lines and the login link on its own line, at the first and every later start', async () => {
    const links: string[] = [];
    for (const start of ['first', 'second']) {
      const serve = await startInTerminal();
      expect(await serve.stop()).toBe(0);
      const lines = serve.lines();
      // Not one JSON line: each event is one readable line.
      expect(
        lines.filter((line) => line.startsWith('{')),
        `${start} start`,
      ).toEqual([]);
      const link = lines.find((line) => CONSOLE_LINE.test(line));
      expect(link, `${start} start:\n${serve.screen()}`).toBeDefined();
      links.push(link!);
      const [, url] = CONSOLE_LINE.exec(link!)!;
      const serving = lines.find((line) => line.includes('mcp-drift serving'));
      expect(serving).toMatch(
        new RegExp(
          String.raw`^\d\d:\d\d:\d\d INFO  mcp-drift serving 0 servers \(0 enabled\) at ${url!.replace(/[.]/g, '\\.')}; \w+ database .+; alerts: none configured$`,
        ),
      );
      // Nothing is configured: no channel is named, Slack and webhooks included.
      expect(serving).not.toMatch(/slack|webhook/i);
      expect(lines).toContainEqual(
        expect.stringMatching(/^\d\d:\d\d:\d\d WARN {2}alerts: no alert destination: /),
      );
    }
    // A new code each start.
    expect(new Set(links).size).toBe(2);
  });

  it('piped, logs JSON lines as before, naming only configured channels', async () => {
    const serve = await startServe({
      ...options(),
      env: { ...database.env, ALERT_TO: 'ops@example.org' },
    });
    expect((await serve.stop()).code).toBe(0);
    expect(serve.output().trim()).toMatch(CONSOLE_LINE);
    const lines = serve
      .log()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const serving = lines.find((line) => line['msg'] === 'mcp-drift serving')!;
    expect(Object.keys(serving['alerts'] as object)).toEqual(['email']);
    expect(serving['headline']).toMatch(/alerts: email \(/);
  });
});

describe(`mcp-drift console-url (${backend})`, () => {
  it('prints a fresh login link from the running serve, which logs in once; fails with exit 4 once it stopped', async () => {
    const serve = await startServe(options());
    try {
      const started = CONSOLE_LINE.exec(serve.output().trim())!;
      const asked = await runCli(['console-url'], options());
      expect(asked.code, asked.stderr).toBe(0);
      const fresh = CONSOLE_LINE.exec(asked.stdout.trim());
      expect(fresh, asked.stdout).not.toBeNull();
      // The same console, a new code.
      expect(fresh![1]).toBe(started[1]);
      expect(fresh![2]).not.toBe(started[2]);
      const link = `${fresh![1]}/?token=${fresh![2]}`;
      const first = await fetch(link, { redirect: 'manual' });
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/');
      expect(first.headers.get('set-cookie')).toMatch(/^mcp_drift_session=/);
      const again = await fetch(link, { redirect: 'manual' });
      expect(again.headers.get('location')).toBe('/login?link=used');
      // A login link needs the token, not a session.
      const anonymous = await fetch(`${fresh![1]}/api/v1/login-links`, { method: 'POST' });
      expect(anonymous.status).toBe(401);
    } finally {
      await stopIfRunning(serve);
    }
    const after = await runCli(['console-url'], options());
    expect(after.code).toBe(4);
    expect(after.stderr).toMatch(/^mcp-drift: no mcp-drift serve is running on /);
  });
});

describe(`repeated failures (${backend})`, () => {
  it('logs a down server once, not on every tick', async () => {
    const added = await runCli(
      ['server', 'add', 'down', '--url', 'http://127.0.0.1:9/mcp', '--schedule', '* * * * * *'],
      options(),
    );
    expect(added.code, added.stderr).toBe(0);
    const serve = await startServe(options());
    try {
      const failedAttempts = async () => {
        const history = await runCli(['history', 'down', '--json'], options());
        if (history.code !== 0) return 0;
        const runs = (JSON.parse(history.stdout) as { runs: { outcome: string; count: number }[] })
          .runs;
        return runs
          .filter((run) => run.outcome === 'error')
          .reduce((sum, run) => sum + run.count, 0);
      };
      await waitUntil('four failed probes of down', async () => (await failedAttempts()) >= 4, {
        timeoutMs: 60_000,
        describe: () => serve.log(),
      });
    } finally {
      await stopIfRunning(serve);
    }
    const failures = serve
      .log()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; server?: string })
      .filter((line) => line.server === 'down' && line.msg === 'listing failed');
    expect(failures).toHaveLength(1);
    const removed = await runCli(['server', 'remove', 'down', '--yes'], options());
    expect(removed.code, removed.stderr).toBe(0);
  });
});
