import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/*
 * `tools/call` round trips through `mcp-drift gateway NAME --lock FILE` (the built CLI, a
 * real process between host and server, as a desktop host runs it) against the same
 * fixture server called directly, both over stdio. Targets (docs/gateway.md): p50 within
 * 1.3× of direct, p99 within 2×. Memory per gateway session: the gateway process's RSS
 * (one process serves one stdio host).
 */

const CALLS = 1_000;
const WARMUP = 100;
const P50_TARGET = 1.3;
const P99_TARGET = 2;
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/sdk2-server.mjs');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function roundTrips(client: Client): Promise<number[]> {
  const call = () => client.callTool({ name: 'list_files', arguments: { folder: '/tmp' } });
  for (let i = 0; i < WARMUP; i += 1) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  return times;
}

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function connect(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: 'ignore' });
  const client = new Client({ name: 'bench-host', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

export async function runGatewayBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-gateway-bench-'));
  const env = { MCP_DRIFT_HOME: path.join(dir, 'never-created'), PATH: process.env.PATH ?? '' };
  try {
    writeFileSync(
      path.join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE] } } }),
    );
    const locked = spawnSync(process.execPath, [CLI, 'lock', '--config', '.mcp.json'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    if (locked.status !== 0) throw new Error(`mcp-drift lock failed: ${locked.stderr}`);

    const direct = await connect(process.execPath, [FIXTURE], dir, env);
    const gateway = await connect(
      process.execPath,
      [CLI, 'gateway', 'fixture', '--lock', 'mcp-drift.lock.json'],
      dir,
      env,
    );
    const directTimes = await roundTrips(direct.client);
    const gatewayTimes = await roundTrips(gateway.client);
    const rss = gateway.pid === null ? NaN : rssKiB(gateway.pid);
    await direct.client.close();
    await gateway.client.close();

    const row = (p: number) => {
      const d = percentile(directTimes, p);
      const g = percentile(gatewayTimes, p);
      const target = p === 50 ? P50_TARGET : P99_TARGET;
      const ratio = g / d;
      console.log(
        `  tools/call p${p}: direct ${d.toFixed(3)} ms, gateway ${g.toFixed(3)} ms, ` +
          `ratio ${ratio.toFixed(2)}× (target ≤ ${target}×) ${ratio <= target ? 'ok' : 'MISSED'}`,
      );
    };
    console.log(`  ${CALLS} calls each after ${WARMUP} warm-up, stdio, one host at a time`);
    row(50);
    row(99);
    console.log(
      `  memory per gateway session (the gateway process's RSS): ${(rss / 1024).toFixed(1)} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
