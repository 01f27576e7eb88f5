import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/**
 * What StdioTransport uses of a child process, node's ChildProcess or one the helper
 * started: its pid and streams, and the events 'spawn', 'exit', 'close' and 'error'.
 */
export interface SpawnedChild extends EventEmitter {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
}

export interface SpawnRequest {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** Starts a stdio server's process: in this process, or through a SpawnHelper. */
export type Spawner = (request: SpawnRequest) => SpawnedChild;

/** node's own spawn, in the calling process: right for short commands (check, lock). */
export const spawnHere: Spawner = ({ command, args, env, cwd }) =>
  spawn(command, args, {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    // The child leads its own process group: closing it signals the whole group.
    detached: true,
    shell: false,
    windowsHide: true,
  });

const HELPER = fileURLToPath(new URL('./spawn-helper-process.cjs', import.meta.url));

type HelperMessage =
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'stdio'; id: number; fd: 0 | 1 | 2 }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; error: { message: string; code?: string } & object };

/**
 * Starts stdio servers from a small helper process (spawn-helper-process.cjs) that serve
 * starts once, and receives each child's stdin, stdout and stderr from it as handles over
 * the IPC channel. node's spawn forks the caller and waits, on the caller's thread, for the
 * child to exec: in serve, holding the embedded database and every session, one spawn held
 * the event loop for up to 90 ms on a quiet machine and 300–400 ms on a loaded one, long
 * enough to delay /healthz past 500 ms (docs/watch-service.md, "Hostile load"). The helper
 * pays that cost instead; it is small, so its forks are cheap.
 *
 * If the helper goes, the children it started are killed with it (it signals their process
 * groups when serve's channel closes), they are reported as killed, and the next spawn
 * starts a new helper.
 */
export class SpawnHelper {
  private helper: ChildProcess | undefined;
  private nextId = 1;
  private readonly children = new Map<number, HelperChild>();
  private stopped = false;

  readonly spawn: Spawner = (request) => {
    const child = new HelperChild();
    if (this.stopped) {
      queueMicrotask(() => child.fail(new Error('the service is stopping: no server is started')));
      return child;
    }
    const id = this.nextId++;
    this.children.set(id, child);
    this.running().send({ type: 'spawn', id, ...request });
    return child;
  };

  /** The helper's pid, once started (for tests). */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  /** Ends the helper, which kills what is still running of its children. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    const helper = this.helper;
    if (!helper || helper.exitCode !== null || helper.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => helper.once('exit', () => resolve()));
    if (helper.connected) helper.disconnect();
    await exited;
  }

  private running(): ChildProcess {
    if (this.helper && this.helper.connected) return this.helper;
    const helper = spawn(process.execPath, [HELPER], {
      // The helper passes each child its own environment; it needs none of serve's.
      env: {},
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    helper.on('message', (message: HelperMessage, handle?: Socket) =>
      this.receive(message, handle),
    );
    helper.once('exit', () => {
      if (this.helper === helper) this.helper = undefined;
      for (const child of this.children.values()) child.lost();
      this.children.clear();
    });
    helper.on('error', () => {});
    // The helper never keeps serve (or a test) running by itself.
    helper.unref();
    helper.channel?.unref();
    this.helper = helper;
    return helper;
  }

  private receive(message: HelperMessage, handle: Socket | undefined): void {
    const child = this.children.get(message.id);
    if (!child) {
      handle?.destroy();
      return;
    }
    if (message.type === 'spawned') child.pid = message.pid;
    else if (message.type === 'stdio') child.attach(message.fd, handle);
    else if (message.type === 'exit') {
      this.children.delete(message.id);
      child.exit(message.code, message.signal);
    } else if (message.type === 'error') {
      this.children.delete(message.id);
      child.fail(Object.assign(new Error(message.error.message), message.error));
    }
  }
}

/**
 * A child the helper started, with ChildProcess's events: 'spawn' once its three streams
 * arrived, 'exit' (code, signal), 'close' once it exited and its output ended, 'error'
 * when it could not start.
 */
class HelperChild extends EventEmitter {
  pid: number | undefined;
  stdin: Writable | null = null;
  stdout: Readable | null = null;
  stderr: Readable | null = null;
  private streams = 0;
  private exitStatus: [number | null, NodeJS.Signals | null] | undefined;
  private openOutputs = 2;

  /** `socket` is missing when the helper had lost it (it never should): the stream is absent. */
  attach(fd: 0 | 1 | 2, socket: Socket | undefined): void {
    if (!socket) {
      if (fd !== 0) this.openOutputs--;
    } else if (fd === 0) {
      // Only written to: its reading side would see just the child's end closing.
      this.stdin = socket;
    } else {
      if (fd === 1) this.stdout = socket;
      else this.stderr = socket;
      socket.once('close', () => {
        this.openOutputs--;
        this.closeIfDone();
      });
    }
    if (++this.streams === 3) {
      this.emit('spawn');
      this.closeIfDone();
    }
  }

  exit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitStatus = [code, signal];
    this.emit('exit', code, signal);
    this.closeIfDone();
  }

  fail(error: Error): void {
    this.emit('error', error);
  }

  /** The helper went: its children were killed with it. */
  lost(): void {
    if (this.pid === undefined) this.fail(new Error('the spawn helper exited'));
    else if (!this.exitStatus) {
      this.stdin?.destroy();
      this.stdout?.destroy();
      this.stderr?.destroy();
      this.exit(null, 'SIGKILL');
    }
  }

  private closeIfDone(): void {
    if (this.exitStatus && this.openOutputs <= 0 && this.streams === 3) {
      this.openOutputs = Infinity;
      this.emit('close', ...this.exitStatus);
    }
  }
}
