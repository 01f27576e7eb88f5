import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { checkFirstListing, diffListings } from '../src/diff/index.js';
import { canonicalListing, type RawTool } from '../src/listings/canonical.js';
import { benignListings, evaluate, formatTable } from '../test/fixtures/poisoning/evaluate.js';

/** The content checks' budget: within 1.3x of the same diff without them. */
const TARGET = 1.3;
const TOOLS = 1_000;
const WARMUPS = 2;
const RUNS = 9;

/** 1,000 real tools (the published listings and fixtures), cloned under numbered names. */
function realTools(): RawTool[] {
  const source = benignListings().flatMap(({ listing }) => listing.tools);
  return Array.from({ length: TOOLS }, (_, i) => {
    const tool = structuredClone(source[i % source.length]!);
    tool.name = `${String(tool.name)}_${i}`;
    return tool;
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Two functions timed in turn, sample by sample, so that outside load falls on both. */
function paired(on: () => unknown, off: () => unknown): [number, number] {
  for (let i = 0; i < WARMUPS; i++) {
    on();
    off();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let start = performance.now();
    on();
    a.push(performance.now() - start);
    start = performance.now();
    off();
    b.push(performance.now() - start);
  }
  return [median(a), median(b)];
}

/**
 * Time per 1,000 tools with the content checks and without, in the two cases where every
 * string is checked: a server's first listing, and a release that changes every tool's
 * description. Then the evaluation set's recall and false-positive table.
 */
export async function runDetectBench(): Promise<void> {
  const tools = realTools();
  const listing = canonicalListing(tools);
  const edited = tools.map((tool) => ({
    ...tool,
    description: `${typeof tool['description'] === 'string' ? tool['description'] : ''} Updated.`,
  }));
  const editedListing = canonicalListing(edited);
  const OFF = { contentChecks: false } as const;
  const rows: Array<[string, number, number]> = [];
  const [firstOn, firstOff] = paired(
    () => checkFirstListing(listing),
    () => checkFirstListing(listing, OFF),
  );
  rows.push(['first listing (every tool new)', firstOn, firstOff]);
  const [changedOn, changedOff] = paired(
    () => diffListings(listing, editedListing),
    () => diffListings(listing, editedListing, OFF),
  );
  rows.push(['release changing every description', changedOn, changedOff]);
  const [pathOn, pathOff] = paired(
    () => diffListings(listing, canonicalListing(edited)),
    () => diffListings(listing, canonicalListing(edited), OFF),
  );
  rows.push(['same, new listing canonicalized in', pathOn, pathOff]);

  console.log(
    `detect: ${TOOLS} real tools, median of ${RUNS} runs after ${WARMUPS} warm-ups, in turn`,
  );
  console.log('  case                                   checks on   checks off   ratio');
  for (const [label, on, off] of rows) {
    console.log(
      `  ${label.padEnd(38)} ${`${on.toFixed(1)} ms`.padStart(9)}  ${`${off.toFixed(1)} ms`.padStart(11)}` +
        `   ${(on / off).toFixed(2)}x (target within ${TARGET}x)`,
    );
  }
  const start = performance.now();
  const evaluation = evaluate();
  console.log(
    `\n  evaluation set (${(performance.now() - start).toFixed(0)} ms):\n${formatTable(evaluation)}`,
  );
  console.log(`  (load average ${loadavg()[0]!.toFixed(2)})`);
}
