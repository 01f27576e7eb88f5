import { readFileSync } from 'node:fs';
import { validateTools } from '../../src/listings/validate.js';
import type { RawTool } from '../../src/listings/canonical.js';

export const FIXTURES = [
  'everything',
  'filesystem',
  'memory',
  'seqthink',
  'playwright',
  'eslint',
  'hello',
] as const;
export type FixtureName = (typeof FIXTURES)[number];

/** A fresh copy of a real listing from test/fixtures/listings (safe to mutate). */
export function loadListing(name: FixtureName): RawTool[] {
  const url = new URL(`../fixtures/listings/${name}.json`, import.meta.url);
  return validateTools(JSON.parse(readFileSync(url, 'utf8')));
}

export function toolNamed(tools: RawTool[], name: string): RawTool {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`fixture has no tool ${name}`);
  return tool;
}

/** The annotations object of a tool, created when absent (for mutation in tests). */
export function annotations(tool: RawTool): Record<string, unknown> {
  if (typeof tool['annotations'] !== 'object' || tool['annotations'] === null) {
    tool['annotations'] = {};
  }
  return tool['annotations'] as Record<string, unknown>;
}

/**
 * A real listing and a copy of it with one tool changed by `mutate`: the shape of every
 * finding test.
 */
export function withChange(
  name: FixtureName,
  toolName: string,
  mutate: (tool: RawTool) => void,
): { before: RawTool[]; after: RawTool[] } {
  const before = loadListing(name);
  const after = structuredClone(before);
  mutate(toolNamed(after, toolName));
  return { before, after };
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A deep copy with every object's keys inserted in a shuffled order. Arrays keep their
 * order: in JSON it is meaningful (only the tools array is unordered, and callers shuffle
 * that themselves).
 */
export function shuffleKeys<T>(value: T, random: () => number): T {
  if (Array.isArray(value)) return value.map((item: unknown) => shuffleKeys(item, random)) as T;
  if (typeof value === 'object' && value !== null) {
    const entries = shuffle(Object.entries(value), random);
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)])) as T;
  }
  return value;
}
