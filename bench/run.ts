// Benchmarks, run by hand (`npm run bench`, or `npm run bench -- diff` for some of them),
// never in the test suite. Add a bench by adding its function to the list.
import { runAlertsBench } from './alerts.bench.js';
import { runCliBench } from './cli.bench.js';
import { runConsoleBench } from './console.bench.js';
import { runDetectBench } from './detect.bench.js';
import { runDiffBench } from './diff.bench.js';
import { runGatewayBench } from './gateway.bench.js';
import { runHistoryBench } from './history.bench.js';
import { runHostileBench } from './hostile.bench.js';
import { runRecordBench } from './record.bench.js';
import { runWatchBench } from './watch.bench.js';

const benches: Array<[string, () => Promise<void>]> = [
  ['diff', runDiffBench],
  ['detect', runDetectBench],
  ['record', runRecordBench],
  ['watch', runWatchBench],
  ['alerts', runAlertsBench],
  ['cli', runCliBench],
  ['console', runConsoleBench],
  ['hostile', runHostileBench],
  ['history', runHistoryBench],
  ['gateway', runGatewayBench],
];

// Names of benches to run; `--name value` pairs are the benches' own settings (read from
// process.argv by the bench that knows them, e.g. `watch --sessions 5000`).
const only = process.argv.slice(2).filter((arg, i, all) => {
  return !arg.startsWith('--') && !all[i - 1]?.startsWith('--');
});
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`# ${name}`);
  await run();
}
