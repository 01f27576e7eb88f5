// Recording observations that see no change: what a probe cycle writes for each of its
// servers almost every time (the watch bench's probe cycle pays it 1,000 times). Run alone
// with `npm run bench -- record`.
//
// Printed side by side with a baseline: a bare drizzle insert of the same observation row,
// one statement per observation, with no reading of the server's history and no canonical
// hashing: what recording would cost if each observation were written on its own. The
// service hashes each listing and checks the chain's end, but writes the observations in
// flight together (SightingBatcher), which is how it can come in under this baseline.
//
// Settings (environment): BENCH_RECORD_DB=pglite|postgres|both (default: both when
// PostgreSQL answers at 127.0.0.1:5432, else pglite), BENCH_RECORD_COUNT (1000).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { emailOnlyPolicy } from '../src/alerts/alert-policy.js';
import { recordObservation } from '../src/changes/record-observation.js';
import type { DatabaseHandle } from '../src/db/client.js';
import { observations, servers, type ServerRow } from '../src/db/schema.js';
import { canonicalListing, type RawTool } from '../src/listings/canonical.js';
import { openBench } from './throwaway-database.js';
import { benchBackends, type Backend } from './watch-monitor.js';
import { listed } from '../test/support/probe-results.js';

const COUNT = Number(process.env.BENCH_RECORD_COUNT ?? 1000);
const ROUNDS = 3;
const policy = emailOnlyPolicy([]);
/** A real listing (the filesystem server's 14 tools), as a probe returns it. */
const tools: RawTool[] = JSON.parse(
  readFileSync('test/fixtures/listings/filesystem.json', 'utf8'),
) as RawTool[];

const result = listed(tools, { durationMs: 5, serverInfo: { name: 'bench', version: '1' } });

interface Timing {
  ms: number;
  cpuMs: number;
}

/** All COUNT servers observed at once, as a probe cycle's recordings overlap. */
async function timed(run: (server: ServerRow) => Promise<unknown>, rows: ServerRow[]) {
  const samples: Timing[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(rows.map(run));
    const used = process.cpuUsage(cpu);
    samples.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
  }
  samples.sort((a, b) => a.ms - b.ms);
  return samples[Math.floor(samples.length / 2)]!;
}

async function runOn(backend: Backend): Promise<void> {
  const { handle, drop } = await openBench(backend, 'record');
  try {
    const rows = await handle.db
      .insert(servers)
      .values(
        Array.from({ length: COUNT }, (_, i) => ({
          name: `bench-${i}`,
          transport: 'http' as const,
          url: `http://127.0.0.1:9/${i}`,
          protocolEra: '2025' as const,
        })),
      )
      .returning();
    const observe = (server: ServerRow) =>
      recordObservation(handle.db, {
        server,
        result,
        trigger: 'poll',
        startedAt: new Date(),
        alerts: policy,
      });
    // First listings (baselines), then a warm-up round; neither is timed.
    for (const server of rows) await observe(server);
    await Promise.all(rows.map(observe));
    const drift = await timed(observe, rows);
    const hash = canonicalListing(tools).hash;
    const baseline = await timed((server) => bareInsert(handle, server, hash), rows);
    const line = (label: string, t: Timing) =>
      `  ${label.padEnd(42)} ${t.ms.toFixed(0).padStart(6)} ms ${t.cpuMs.toFixed(0).padStart(6)} ms` +
      `  ${(t.ms / baseline.ms).toFixed(2).padStart(5)} ×`;
    console.log(`  on ${backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}`);
    console.log(line('recordObservation, listing unchanged', drift));
    console.log(line('bare insert of each row (baseline)', baseline));
  } finally {
    await handle.close();
    await drop();
  }
}

function bareInsert(handle: DatabaseHandle, server: ServerRow, hash: string) {
  return handle.db.insert(observations).values({
    serverId: server.id,
    startedAt: new Date(),
    lastSeenAt: new Date(),
    durationMs: 5,
    trigger: 'poll',
    outcome: 'ok',
    listingHash: hash,
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'bench', version: '1' },
    capabilities: { tools: { listChanged: true } },
    pages: 1,
  });
}

export async function runRecordBench(): Promise<void> {
  const backends = await benchBackends(process.env.BENCH_RECORD_DB);
  console.log(
    `record: ${COUNT} servers' observations of an unchanged ${tools.length}-tool listing, all ` +
      `at once, median of ${ROUNDS} rounds; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(`  ${''.padEnd(42)} ${'wall'.padStart(9)} ${'CPU here'.padStart(9)}  vs baseline`);
  for (const backend of backends) await runOn(backend);
}
