// Benchmarks, run by hand (`npm run bench`), never in the test suite. Add a bench by
// adding its function to the list.
import { runDiffBench } from './diff.bench.js';

const benches: Array<[string, () => Promise<void>]> = [['diff', runDiffBench]];

for (const [name, run] of benches) {
  console.log(`# ${name}`);
  await run();
}
