import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
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

/**
 * Runs `mcp-drift ARGS…` to its end. In this process, from src/, as the executable would
 * (run-command.ts with the test's environment, working directory and streams of its own):
 * a spawned CLI costs a node start and, on PGlite, opening the data directory afresh (one to
 * three seconds each), and tests run hundreds. Spawned instead when another in-process run
 * is under way (tests racing two commands mean two processes), for `serve` and `gateway`,
 * and when `spawn` is asked for.
 * What only the executable does (argv, signals, flushing before exit) is tested through
 * spawnCli and runSpawnedCli.
 */
export async function runCli(
  args: string[],
  options: CliOptions & { spawn?: boolean },
): Promise<CliResult> {
  if (options.spawn || inProcessBusy || PROCESS_COMMANDS.has(args[0] ?? '')) {
    return runSpawnedCli(args, options);
  }
  inProcessBusy = true;
  const home = process.cwd();
  try {
    process.chdir(options.cwd);
    const stdout = new TextSink();
    const stderr = new TextSink();
    const { runCommand } = await import('../../src/cli/run-command.js');
    const code = await runCommand(args, {
      signal: new AbortController().signal,
      env: definedOnly(childEnv(options.env)),
      streams: { stdin: Readable.from([]), stdout, stderr },
    });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    process.chdir(home);
    inProcessBusy = false;
  }
}

let inProcessBusy = false;

/** Commands that run until stopped, and own the process's stdin or signals: always spawned. */
const PROCESS_COMMANDS = new Set(['serve', 'gateway']);

/** A stream a command writes text to, kept whole; not a terminal, as a pipe is not. */
class TextSink {
  text = '';
  readonly isTTY = false;
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }
}

/** As spawn() treats the environment: a variable set to undefined is not set. */
function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** `mcp-drift ARGS…` as a process of its own, the built executable, to its end. */
export function runSpawnedCli(args: string[], options: CliOptions): Promise<CliResult> {
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
