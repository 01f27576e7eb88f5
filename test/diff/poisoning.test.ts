import { describe, expect, it } from 'vitest';
import { ALL_POISONED, evaluate, formatTable } from '../fixtures/poisoning/evaluate.js';
import { FAMILIES } from '../fixtures/poisoning/cases.js';

describe('the poisoning evaluation set: a correctness gate', () => {
  const evaluation = evaluate();

  it('covers the eight families, six languages, six encodings and every field', () => {
    expect(ALL_POISONED.length).toBeGreaterThanOrEqual(200);
    expect(new Set(ALL_POISONED.map((c) => c.family))).toEqual(new Set(FAMILIES));
    const languages = new Set(ALL_POISONED.flatMap((c) => (c.language ? [c.language] : [])));
    expect(languages.size).toBeGreaterThanOrEqual(6);
    const encodings = new Set(ALL_POISONED.flatMap((c) => (c.encoding ? [c.encoding] : [])));
    expect(encodings.size).toBeGreaterThanOrEqual(6);
    const fields = new Set(ALL_POISONED.map((c) => c.field));
    for (const field of [
      'description',
      'title',
      'annotations.title',
      'property description',
      'property title',
      'default',
      'examples',
      'enum',
      'const',
      '$defs',
      'outputSchema description',
      'property name',
      'name',
      'instructions',
    ]) {
      expect(fields).toContain(field);
    }
    expect(ALL_POISONED.filter((c) => c.holdout).length).toBeGreaterThanOrEqual(40);
    expect(evaluation.benign.texts).toBeGreaterThanOrEqual(200);
  });

  it('recall at high+ is at least 0.95 overall and 0.85 per family; benign at high+ at most 1 %', () => {
    console.log(`\n${formatTable(evaluation)}\n`);
    for (const missed of evaluation.missed) console.log(`missed: ${missed.id} (${missed.field})`);
    for (const flagged of evaluation.benign.flagged) {
      console.log(`benign at high+: ${flagged.source} ${flagged.tool}`);
    }
    expect(evaluation.overall.recall).toBeGreaterThanOrEqual(0.95);
    for (const row of evaluation.rows) expect(row.recall, row.family).toBeGreaterThanOrEqual(0.85);
    expect(evaluation.benign.rate).toBeLessThanOrEqual(0.01);
  });
});
