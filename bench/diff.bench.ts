import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { checkFirstListing, diffListings } from '../src/diff/index.js';
import { canonicalListing, sha256Hex, type RawTool } from '../src/listings/canonical.js';
import { validateTools } from '../src/listings/validate.js';

/** The diff target: canonicalize + hash + diff of two 10,000-tool listings, one relaxation. */
const TARGET_MS = 100;
/** The content-check target: the per-observation path with content checks vs without. */
const CHECKS_TARGET = 1.1;
const TOOLS = 10_000;
const WARMUPS = 2;
const RUNS = 7;

function fixtureTools(): RawTool[] {
  const dir = new URL('../test/fixtures/listings/', import.meta.url);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => validateTools(JSON.parse(readFileSync(new URL(file, dir), 'utf8')), file));
}

/** Deterministic shuffle (mulberry32), so every run measures the same listings. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Two listings of real tools cloned under numbered names; the second is a deep copy in
 * another order with one write tool re-declared read-only.
 */
export function buildListings(count = TOOLS): { before: RawTool[]; after: RawTool[] } {
  const source = fixtureTools();
  const before: RawTool[] = [];
  for (let i = 0; i < count; i++) {
    const tool = structuredClone(source[i % source.length]!);
    tool.name = `${tool.name}_${i}`;
    if (typeof tool['description'] === 'string') tool['description'] += ` (instance ${i})`;
    before.push(tool);
  }
  const after = shuffled(structuredClone(before), 42);
  const victim = after.find((tool) => tool.name.startsWith('write_file_'));
  if (victim === undefined) throw new Error('no write_file tool to relax');
  victim['annotations'] = { ...(victim['annotations'] as object), readOnlyHint: true };
  return { before, after };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Timing {
  median: number;
  min: number;
  max: number;
}

/** Times `run` on what `prepare` returns; preparing is not timed. */
function time<T>(run: (input: T) => unknown, prepare: () => T = () => undefined as T): Timing {
  for (let i = 0; i < WARMUPS; i++) run(prepare());
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const input = prepare();
    const start = performance.now();
    run(input);
    samples.push(performance.now() - start);
  }
  return { median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
}

/** Times two runs alternately (3 × RUNS samples each): a paired comparison. */
function paired(a: () => unknown, b: () => unknown): [Timing, Timing] {
  for (let i = 0; i < WARMUPS; i++) {
    a();
    b();
  }
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < 3 * RUNS; i++) {
    for (const [index, run] of [a, b].entries()) {
      const start = performance.now();
      run();
      samples[index]!.push(performance.now() - start);
    }
  }
  const timing = (values: number[]): Timing => ({
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
  });
  return [timing(samples[0]), timing(samples[1])];
}

export async function runDiffBench(): Promise<void> {
  const { before, after } = buildListings();
  const canonicalBefore = canonicalListing(before);
  const canonicalAfter = canonicalListing(after);
  const check = diffListings(canonicalBefore, canonicalAfter);
  const found = check.findings.map((f) => `${f.kind}/${f.field ?? '-'}/${f.severity}`).join(', ');
  const beforeText = JSON.stringify(before);
  const afterText = JSON.stringify(after);

  // The floor under any canonical hash of these listings: serializing both as they are (no
  // key sorting) and one sha256 pass over each, nothing else. Measured first, as the
  // baseline every other row is compared to.
  const floor = time(() => {
    sha256Hex(JSON.stringify(before));
    sha256Hex(JSON.stringify(after));
  });
  const rows: Array<[string, Timing]> = [
    [
      'canonicalize + hash, both',
      time(() => {
        canonicalListing(before);
        canonicalListing(after);
      }),
    ],
    ['diff (canonical in)', time(() => diffListings(canonicalBefore, canonicalAfter))],
    // The diff figure: two raw listings in; canonical form, listing and tool hashes, and
    // the findings out (the content checks included).
    ['total: both raw in (target)', time(() => diffListings(before, after))],
    // The same on listings just parsed, as a server's arrive, rather than on objects the
    // runs before have already walked (and whose names they have already interned).
    [
      'total, freshly parsed listings',
      time(
        ([b, a]) => diffListings(b, a),
        () => [JSON.parse(beforeText) as RawTool[], JSON.parse(afterText) as RawTool[]] as const,
      ),
    ],
    // What the service does per new observation: the previous listing was hashed when it
    // was first seen, so only the new one is canonicalized; the content checks
    // run on the text of the tools that changed.
    ['new side only + diff', time(() => diffListings(canonicalBefore, canonicalListing(after)))],
    // The text is built only when read (storing a new listing reads it): not part of the
    // target, shown so that it is not forgotten.
    ['one listing: hashes + text', time(() => canonicalListing(after).canonical)],
    ['floor: JSON.stringify + sha256', floor],
  ];
  // The content-check comparisons, measured after the rows above so that their garbage does not
  // weigh on them: with and without the content checks, sample by sample in turn, so that
  // load from elsewhere on the machine falls on both alike.
  const OFF = { contentChecks: false } as const;
  const [withChecks, withoutChecks] = paired(
    () => diffListings(canonicalBefore, canonicalListing(after)),
    () => diffListings(canonicalBefore, canonicalListing(after), OFF),
  );
  const [diffWith, diffWithout] = paired(
    () => diffListings(canonicalBefore, canonicalAfter),
    () => diffListings(canonicalBefore, canonicalAfter, OFF),
  );
  rows.push(
    ['in turn: new side only + diff, checks on', withChecks],
    ['in turn: new side only + diff, checks off', withoutChecks],
    ['in turn: diff (canonical in), checks on', diffWith],
    ['in turn: diff (canonical in), checks off', diffWithout],
    // A server's first listing: every string of every tool through the content checks.
    ['content checks, first listing', time(() => checkFirstListing(canonicalAfter))],
  );

  const bytes = canonicalBefore.canonical.length + canonicalAfter.canonical.length;
  const cores = availableParallelism();
  console.log(
    `diff: two listings of ${TOOLS} tools (${(bytes / 1e6).toFixed(1)} MB canonical), ` +
      `median of ${RUNS} runs after ${WARMUPS} warm-ups, ${cores} cores; findings: ${found}`,
  );
  console.log(
    `  target ${TARGET_MS} ms for the total; floor ${floor.median.toFixed(1)} ms ` +
      '(both listings serialized as they are, keys unsorted, and hashed once each)',
  );
  const width = Math.max(...rows.map(([label]) => label.length));
  const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(9);
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`.padStart(9);
  console.log(
    `  ${'step'.padEnd(width)}  ${'median'.padStart(9)}  ${'min'.padStart(9)}  ${'max'.padStart(9)}` +
      `  ${'vs target'.padStart(9)}  ${'vs floor'.padStart(9)}`,
  );
  for (const [label, timing] of rows) {
    console.log(
      `  ${label.padEnd(width)}  ${ms(timing.median)}  ${ms(timing.min)}  ${ms(timing.max)}` +
        `  ${ratio(timing.median, TARGET_MS)}  ${ratio(timing.median, floor.median)}`,
    );
  }
  console.log(
    `  per-observation path (new listing in, content checks, diff): ${withChecks.median.toFixed(1)} ms ` +
      `with the checks, ${withoutChecks.median.toFixed(1)} ms without: ` +
      `${(withChecks.median / withoutChecks.median).toFixed(3)}x (target within ${CHECKS_TARGET}x)`,
  );
  const heap = process.memoryUsage().heapUsed / 1e6;
  console.log(
    `  (heap in use after the runs: ${heap.toFixed(0)} MB; load average ${loadavg()[0]!.toFixed(2)})`,
  );
}
