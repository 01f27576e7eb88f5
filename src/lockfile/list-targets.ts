import { connectSpecOf } from '../changes/probe-spec.js';
import { probe, type ProbeOptions, type ProbeResult } from '../mcp/index.js';
import type { LockTarget } from './lock-targets.js';

/** Servers listed at once: stdio servers are processes, and CI machines are small. */
const CONCURRENCY = 4;

/** Told of each target as its probe returns, for progress on a terminal. */
export type OnListed = (target: LockTarget, result: ProbeResult) => void;

/** A fresh probe of every target, a few at a time; results in the targets' order. */
export async function listTargets(
  targets: readonly LockTarget[],
  options: ProbeOptions,
  onListed?: OnListed,
): Promise<ProbeResult[]> {
  const results = new Array<ProbeResult>(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length && !options.signal?.aborted) {
      const index = next++;
      results[index] = await probe(connectSpecOf(targets[index]!.spec), options);
      onListed?.(targets[index]!, results[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
  return results;
}
