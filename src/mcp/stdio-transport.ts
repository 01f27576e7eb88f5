import type { Readable } from 'node:stream';
import {
  parseJSONRPCMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { isListChangedMessage } from './http-guard.js';
import { spawnHere, type SpawnedChild, type Spawner } from './spawn-helper.js';
import { TextTail } from './text-tail.js';
import { ToolCounter, toolCapAnswer, toolCapReason } from './tool-counter.js';

export interface StdioTransportOptions {
  command: string;
  args: string[];
  /** Merged over the SDK's minimal default environment (HOME, PATH, …), as the SDK does. */
  env: Record<string, string>;
  cwd?: string;
  /** A single line larger than this drops the connection: the size cap bounds a whole listing. */
  maxMessageBytes: number;
  /**
   * A line that is a tools/list answer with more tools than this drops the connection,
   * counted in its raw bytes as they arrive, before the line is parsed.
   */
  maxTools?: number;
  /** How long a child gets to exit after its stdin closes before it is signalled. */
  closeGraceMs: number;
  /**
   * Each `notifications/tools/list_changed` line, handed over instead of to the SDK, which
   * validates every message twice: a server sending 20,000 a second stalled the service.
   */
  onToolsListChanged?: () => void;
  /** Who starts the process: this process by default, serve's SpawnHelper in serve. */
  spawn?: Spawner;
}

/** A change notification is a short line; longer ones go the SDK's way. */
const NOTIFICATION_MAX_CHARS = 512;

const STDERR_TAIL_CHARS = 4096;
const STRAY_LINE_SAMPLES = 3;
const PREVIEW_CHARS = 120;

/**
 * Spawns a stdio MCP server and speaks newline-delimited JSON-RPC with it.
 *
 * Why not the SDK's StdioClientTransport: it silently skips lines that are not JSON, hides
 * the child process (no exit code once it is gone), and its stderr is only useful if
 * someone drains it. A monitor must explain failures ("wrote 'Starting server…' to stdout",
 * "exited with code 3: MISSING_API_KEY is not set") and must never leave a child behind,
 * including grandchildren (`npx` → `node`): the child leads its own process group and the
 * whole group is signalled.
 *
 * The SDK recognises this transport as stdio-shaped (it has `stderr` and `pid`), so a
 * `server/discover` probe that times out is read as "legacy server", as on the SDK's own
 * stdio transport; unlike that one, the probe runs in place instead of on a second process.
 */
export class StdioTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  private child: SpawnedChild | undefined;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** Resolves once the child has exited and its pipes are closed (stderr read to the end). */
  private gone: Promise<void> = Promise.resolve();
  /** The child closed its end of a pipe (or wrote EOF): it is exiting, or has exited. */
  private pipeClosed = false;
  private closing: Promise<void> | undefined;
  private closeReported = false;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The tools of the line being read, counted as its bytes arrive. */
  private readonly tools = new ToolCounter();
  /** The id of the latest tools/list request: the one a line over the tool cap answers. */
  private listingId: string | number | undefined;
  /** The rest of the current line is skipped: it was over the tool cap. */
  private skipping = false;
  /** Set when the child broke the framing so badly that the connection was dropped. */
  private fatal: string | undefined;
  private readonly stderrTail = new TextTail(STDERR_TAIL_CHARS);
  private readonly strayLines: string[] = [];
  private strayLineCount = 0;

  constructor(private readonly options: StdioTransportOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The child's stderr, already being drained into the tail kept for error messages. */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started');
    const child = (this.options.spawn ?? spawnHere)({
      command: this.options.command,
      args: this.options.args,
      env: { ...getDefaultEnvironment(), ...this.options.env },
      cwd: this.options.cwd,
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve();
      });
      // A child that never started (ENOENT, EACCES) never exits either.
      child.once('error', () => {
        if (child.pid === undefined) resolve();
      });
    });
    this.gone = new Promise((resolve) => {
      child.once('close', () => resolve());
      child.once('error', () => {
        if (child.pid === undefined) resolve();
      });
    });
    child.once('close', () => this.reportClose());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        child.off('error', reject);
        child.on('error', (error) => this.onerror?.(error));
        resolve();
      });
      child.once('error', reject);
    });
    // Once spawned: a child the spawn helper starts has its streams only then. What the
    // child wrote meanwhile waits in them, unread.
    child.stdout?.once('end', () => (this.pipeClosed = true));
    child.stdin?.once('close', () => (this.pipeClosed = true));
    // EPIPE: the write met a pipe the child closed, maybe before 'close' is seen.
    child.stdin?.once('error', () => (this.pipeClosed = true));
    child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.stderrTail.append(chunk));
    // EPIPE when the child is gone: the close path reports that, not this.
    child.stdin?.on('error', (error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin?.destroyed && !this.closing) {
      // The child closed its input before this write: a helper-started child's stdin is a
      // socket, destroyed when its far end goes, where a pipe of our own would fail the
      // write with EPIPE. Either way the child is going, and its exit says why.
      this.pipeClosed = true;
      throw Object.assign(new Error('the server process closed its input'), { code: 'EPIPE' });
    }
    if (!stdin || this.closing) throw new Error('server process is not running');
    if ('method' in message && message.method === 'tools/list' && 'id' in message) {
      this.listingId = message.id;
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends stdin, then escalates SIGTERM → SIGKILL to the process group. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.terminate();
    return this.closing;
  }

  /**
   * Waits up to `ms` for a child that is going (it exited, or closed a pipe) to be gone
   * with its stderr read to the end; returns at once for one that is still running (a hung
   * server stays hung) or never started. A write can fail on a closed pipe before the exit
   * is seen: describing the failure then lost the exit code and the last words on stderr.
   */
  async settleExit(ms: number): Promise<void> {
    if (!this.child || (!this.pipeClosed && !this.exitStatus)) return;
    await settlesWithin(this.gone, ms);
  }

  /** Why this transport dropped the connection itself, if it did. */
  describeFatal(): string | null {
    return this.fatal ?? null;
  }

  /** "exited with code 3", "was killed by SIGKILL", or null while it runs (or never ran). */
  describeExit(): string | null {
    if (!this.exitStatus) return null;
    const { code, signal } = this.exitStatus;
    return signal ? `was killed by ${signal}` : `exited with code ${code}`;
  }

  /** The end of what the child wrote to stderr, trimmed. */
  stderrText(): string {
    return this.stderrTail.toString().trim();
  }

  /** Lines on stdout that were not JSON-RPC, as a short quoted sample; null if none. */
  describeStrayOutput(): string | null {
    if (this.strayLineCount === 0) return null;
    const quoted = this.strayLines.map((line) => JSON.stringify(line)).join(', ');
    const more = this.strayLineCount - this.strayLines.length;
    return more > 0 ? `${quoted} and ${more} more` : quoted;
  }

  private receive(chunk: Buffer): void {
    if (this.fatal) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      const skipped = this.skipping || this.tooManyTools(piece);
      this.tools.reset();
      this.skipping = false;
      if (this.fatal) return;
      if (skipped) {
        start = newline + 1;
        continue;
      }
      const line = this.partial.length > 0 ? Buffer.concat([...this.partial, piece]) : piece;
      this.partial = [];
      this.partialBytes = 0;
      this.handleLine(line.toString('utf8').replace(/\r$/, ''));
      start = newline + 1;
    }
    if (start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (this.skipping || this.tooManyTools(rest)) {
      this.skipping = !this.fatal;
      return;
    }
    this.partialBytes += rest.length;
    this.partial.push(rest);
    if (this.partialBytes > this.options.maxMessageBytes) {
      // Nothing after this can be framed reliably: drop the connection, say why.
      this.fatal = `the server sent a message larger than ${this.options.maxMessageBytes} bytes, more than the listing size cap allows`;
      this.partial = [];
      this.partialBytes = 0;
      this.onerror?.(new Error(this.fatal));
      void this.close();
    }
  }

  /**
   * Counts the tools in more bytes of the current line. Past the cap, the line is dropped
   * unparsed and the SDK is handed a JSON-RPC error for the tools/list request instead, so
   * the listing fails and the session stays up (or, with no such request, the connection
   * is dropped).
   */
  private tooManyTools(bytes: Uint8Array): boolean {
    const cap = this.options.maxTools;
    if (cap === undefined || this.tools.feed(bytes) <= cap) return false;
    this.partial = [];
    this.partialBytes = 0;
    const id = this.listingId;
    this.listingId = undefined;
    if (id === undefined) {
      this.fatal = toolCapReason(cap);
      this.onerror?.(new Error(this.fatal));
      void this.close();
    } else {
      this.onmessage?.(toolCapAnswer(id, cap));
    }
    return true;
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    if (line.length <= NOTIFICATION_MAX_CHARS && isListChangedMessage(line)) {
      this.options.onToolsListChanged?.();
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Servers that log to stdout still work with most hosts, so this is remembered for
      // the error message rather than fatal.
      this.recordStrayLine(line);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.recordStrayLine(line);
      return;
    }
    this.onmessage?.(message);
  }

  private recordStrayLine(line: string): void {
    this.strayLineCount += 1;
    if (this.strayLines.length < STRAY_LINE_SAMPLES) {
      this.strayLines.push(line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line);
    }
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined && !this.exitStatus) {
      child.stdin?.end();
      if (!(await settlesWithin(this.exited, this.options.closeGraceMs))) {
        this.signalGroup('SIGTERM');
        if (!(await settlesWithin(this.exited, 1000))) {
          this.signalGroup('SIGKILL');
          await settlesWithin(this.exited, 2000);
        }
      }
    }
    // Grandchildren that outlived the leader (or ignored it) go too.
    this.signalGroup('SIGKILL');
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    child?.stdin?.destroy();
    this.reportClose();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.onclose?.();
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
