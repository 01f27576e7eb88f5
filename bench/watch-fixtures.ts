import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fixtures/many-servers.mjs', import.meta.url));

export type FixtureKind = 'server' | 'mcpserver';

/** Every child the bench started and has not seen exit, for the last-resort kill. */
const children = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGKILLs every child still running (the bench's overall deadline passed). */
export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}

interface FixtureProcess {
  child: ChildProcess;
  first: number;
  count: number;
  control: string;
}

/** N fixture MCP servers on loopback, served by a few processes (bench/fixtures/many-servers.mjs). */
export class FixtureServers {
  /** Server i's Streamable HTTP endpoint. */
  readonly urls: string[];
  private readonly processes: FixtureProcess[];

  private constructor(processes: FixtureProcess[], urls: string[]) {
    this.processes = processes;
    this.urls = urls;
  }

  static async start(options: {
    servers: number;
    processes: number;
    tools: number;
    kind: FixtureKind;
    timeoutMs: number;
  }): Promise<FixtureServers> {
    const per = Math.ceil(options.servers / options.processes);
    const starting: Array<Promise<{ process: FixtureProcess; ports: number[] }>> = [];
    for (let first = 0; first < options.servers; first += per) {
      const count = Math.min(per, options.servers - first);
      starting.push(startOne(first, count, options));
    }
    const settled = await Promise.allSettled(starting);
    const started = settled.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    );
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) {
      for (const { process } of started) process.child.kill('SIGKILL');
      throw failed.reason;
    }
    const urls = started.flatMap(({ ports }) =>
      ports.map((port) => `http://127.0.0.1:${port}/mcp`),
    );
    return new FixtureServers(
      started.map(({ process }) => process),
      urls,
    );
  }

  /** Changes server `index`'s listing and notifies its sessions; resolves with the send time. */
  async change(index: number): Promise<{ sentAt: number; sessions: number }> {
    const owner = this.processes.find((p) => index >= p.first && index < p.first + p.count);
    if (!owner) throw new Error(`no fixture process serves server ${index}`);
    const response = await fetch(`${owner.control}/change`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`fixture change ${index}: HTTP ${response.status}`);
    return (await response.json()) as { sentAt: number; sessions: number };
  }

  /** Live MCP sessions over all fixture processes. */
  async sessions(): Promise<number> {
    const counts = await Promise.all(
      this.processes.map(async ({ control }) => {
        const response = await fetch(`${control}/stats`, { signal: AbortSignal.timeout(10_000) });
        return ((await response.json()) as { sessions: number }).sessions;
      }),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; idempotent. */
  async stop(graceMs = 5_000): Promise<void> {
    await Promise.all(this.processes.map(({ child }) => stopChild(child, graceMs)));
  }
}

async function startOne(
  first: number,
  count: number,
  options: { tools: number; kind: FixtureKind; timeoutMs: number },
): Promise<{ process: FixtureProcess; ports: number[] }> {
  const args = [
    SCRIPT,
    ...['--first', String(first), '--count', String(count)],
    ...['--tools', String(options.tools), '--kind', options.kind],
  ];
  // stdin stays open: the fixture exits when it ends, so it cannot outlive the bench.
  const child = track(spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] }));
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  try {
    const ready = new Promise<{ control: number; ports: number[] }>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)));
      });
      child.once('exit', (code, signal) =>
        reject(
          new Error(`fixture servers ${first}+${count} exited (${signal ?? code}) before READY`),
        ),
      );
    });
    const { control, ports } = await ready;
    if (ports.length !== count)
      throw new Error(`fixture announced ${ports.length} of ${count} ports`);
    return { process: { child, first, count, control: `http://127.0.0.1:${control}` }, ports };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export async function stopChild(child: ChildProcess, graceMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return null;
  const started = performance.now();
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  return performance.now() - started;
}
