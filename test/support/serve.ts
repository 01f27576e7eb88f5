import type { ChildProcess } from 'node:child_process';
import { exited, spawnCli, waitForOutput, type CliOptions } from './cli.js';

export interface RunningServe {
  child: ChildProcess;
  /** Everything serve wrote to stderr so far (its JSON log). */
  log(): string;
  /** Everything serve wrote to stdout so far (the login link). */
  output(): string;
  /** Sends SIGTERM (or `signal`) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null }>;
}

/** Starts `mcp-drift serve` and resolves once it logs that it is serving. */
export async function startServe(options: CliOptions): Promise<RunningServe> {
  const child = spawnCli(['serve'], options);
  let log = '';
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForOutput(child.stderr!, /"msg":"mcp-drift serving"/);
  return {
    child,
    log: () => log,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return { code: await exited(child) };
    },
  };
}
