// Benchmarks, run by hand (`npm run bench`), never in the test suite. Add a bench by
// adding its function to the list.
import { runDiffBench } from './diff.bench.js';
import { runWatchBench } from './watch.bench.js';

const benches: Array<[string, () => Promise<void>]> = [
  ['diff', runDiffBench],
  ['watch', runWatchBench],
];

for (const [name, run] of benches) {
  console.log(`# ${name}`);
  await run();
}
