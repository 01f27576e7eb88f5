// Times one row of the cli bench (bench/cli.bench.ts) and prints the figures as JSON:
//   node cli-timer.mjs '{"command": [...], "env": {...}, "cwd": "...", "runs": 15, "warmups": 2}'
// Each run is a bare `node -e 0` then the command, both spawned from this small process
// rather than from the bench's own: spawning copies the parent's page tables, and a bench
// that has set up an embedded database holds hundreds of MB, which made each spawn (the bare
// node's as much as the command's) some 10 ms slower, and the ratios kinder than they are.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const CPU_PRELOAD = new URL('./cpu-at-exit.cjs', import.meta.url).pathname;
const { command, env, cwd, runs, warmups } = JSON.parse(process.argv[2]);
const cpuDir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-bench-cpu-'));
let cpuRuns = 0;

/** Wall and CPU time of one process from spawn to exit; its output goes to /dev/null. */
function timed(args) {
  const cpuFile = path.join(cpuDir, `${cpuRuns++}`);
  const start = performance.now();
  const result = spawnSync(process.execPath, ['-r', CPU_PRELOAD, ...args], {
    env: { ...env, CPU_AT_EXIT: cpuFile },
    cwd,
    stdio: 'ignore',
  });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    const again = spawnSync(process.execPath, args, { env, cwd, encoding: 'utf8' });
    throw new Error(`\`node ${args.join(' ')}\` exited ${result.status}: ${again.stderr}`);
  }
  const cpuMs = Number(readFileSync(cpuFile, 'utf8').trim()) / 1000;
  rmSync(cpuFile);
  return { ms, cpuMs };
}

const bare = ['-e', '0'];
const measured = { ms: [], baselineMs: [], cpuMs: [], baselineCpuMs: [] };
try {
  for (let i = 0; i < warmups + runs; i++) {
    const baseline = timed(bare);
    const run = timed(command);
    if (i < warmups) continue;
    measured.baselineMs.push(baseline.ms);
    measured.ms.push(run.ms);
    measured.baselineCpuMs.push(baseline.cpuMs);
    measured.cpuMs.push(run.cpuMs);
  }
} finally {
  rmSync(cpuDir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(measured));
