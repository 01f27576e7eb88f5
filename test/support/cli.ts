import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built bin, as a user runs it; `npm test` builds first (pretest). Running the sources
 * through tsx instead costs over a second of compilation per call.
 */
export const cliMain = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Variables a developer's shell may carry that would point the CLI somewhere else. */
const SCRUBBED = [
  'DATABASE_URL',
  'MCP_DRIFT_HOME',
  'SMTP_URL',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'ALERT_TO',
  'ALERT_FROM',
  'SLACK_WEBHOOK_URL',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'CONSOLE_TOKEN',
];

export interface CliOptions {
  env: Record<string, string | undefined>;
  /** Working directory; keep it a test directory so no developer's .env is read. */
  cwd: string;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function childEnv(env: CliOptions['env']): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of SCRUBBED) delete base[key];
  // Tests run many serve processes at once: each takes an ephemeral port for its health and
  // metrics endpoint (logged in its "mcp-drift serving" line) unless a test sets one.
  return { ...base, HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', ...env };
}

/** Starts `mcp-drift ARGS…`. */
export function spawnCli(args: string[], options: CliOptions): ChildProcess {
  if (!existsSync(cliMain))
    throw new Error(`${cliMain} is missing: run \`npm run build\` (npm test does)`);
  return spawn(process.execPath, [cliMain, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves with everything written to the stream so far once `pattern` appears in it. */
export function waitForOutput(
  stream: NodeJS.ReadableStream,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(
        new Error(
          `timed out after ${timeoutMs} ms waiting for ${pattern}; output so far:\n${seen}`,
        ),
      );
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const shellQuoted = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Starts `mcp-drift ARGS…` in a pseudo-terminal (`script`), as a person at a terminal runs
 * it: its stdin and stdout are a TTY. What is written to the child's stdin is typed at that
 * terminal; its stdout carries the terminal's output (the command's stdout and stderr, with
 * CRLF line ends and the echo of what was typed). The exit code is the command's (`-e`).
 */
export function spawnCliInTerminal(args: string[], options: CliOptions): ChildProcess {
  if (!existsSync(cliMain))
    throw new Error(`${cliMain} is missing: run \`npm run build\` (npm test does)`);
  const command = [process.execPath, cliMain, ...args].map(shellQuoted).join(' ');
  return spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...childEnv(options.env), SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
