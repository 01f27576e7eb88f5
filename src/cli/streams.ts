/*
 * The streams a CLI invocation reads and writes. A command run by the executable uses the
 * process's; a test running commands in its own process (test/support/cli.ts) hands each
 * run streams of its own, through runCommand. Commands write through here, never to
 * process.stdout or process.stderr directly.
 */

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: OutputStream;
  stderr: OutputStream;
}

/** The process's own, looked up when used: touching process.stdin opens it. */
const processStreams: CliStreams = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};

let current: CliStreams = processStreams;

export function cliStreams(): CliStreams {
  return current;
}

/** Whether the invocation writes to the process's own stderr (the logger then writes fd 2). */
export function usingProcessStreams(): boolean {
  return current === processStreams;
}

/**
 * Runs `fn` with `streams` as the invocation's streams. One invocation at a time: the CLI
 * runs one command per process, and a test runs its in-process commands one after another.
 */
export async function withCliStreams<T>(streams: CliStreams, fn: () => Promise<T>): Promise<T> {
  if (current !== processStreams) throw new Error('a CLI invocation is already running here');
  current = streams;
  try {
    return await fn();
  } finally {
    current = processStreams;
  }
}
