import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import { canonicalListing } from '../../src/listings/canonical.js';
import {
  FIXTURES,
  annotations,
  loadListing,
  seededRandom,
  shuffle,
  shuffleKeys,
  toolNamed,
  withChange,
} from '../listings/support.js';
import { briefs } from './support.js';

describe('what is not a change', () => {
  it('a listing diffed with itself has no findings and severity none', () => {
    for (const name of FIXTURES) {
      const tools = loadListing(name);
      const result = diffListings(tools, tools, {
        delivery: { listChangedAdvertised: true, notificationSeen: false },
      });
      expect(result.severity, name).toBe('none');
      expect(result.findings, name).toEqual([]);
      expect(result.changed, name).toBe(false);
      expect(result.beforeHash).toBe(result.afterHash);
    }
  });

  it('tool order and key order at every depth change nothing', () => {
    const random = seededRandom(2026);
    for (const name of FIXTURES) {
      const tools = loadListing(name);
      const shuffled = shuffleKeys(shuffle(tools, random), random);
      const result = diffListings(tools, shuffled);
      expect(result.severity, name).toBe('none');
      expect(result.findings, name).toEqual([]);
    }
  });

  it('the shuffler really reorders keys', () => {
    const tool = toolNamed(loadListing('filesystem'), 'write_file');
    const shuffled = shuffleKeys(tool, seededRandom(1));
    expect(Object.keys(shuffled)).not.toEqual(Object.keys(tool));
    expect(shuffled).toEqual(tool);
  });

  it('absent annotations and an empty annotations object are the same', () => {
    const { before, after } = withChange('hello', 'echo', (tool) => {
      tool['annotations'] = {};
    });
    expect(toolNamed(before, 'echo')['annotations']).toBeUndefined();
    const result = diffListings(before, after);
    expect(result).toMatchObject({ severity: 'none', findings: [], changed: false });
  });

  it('accepts listings already canonicalized', () => {
    const tools = loadListing('memory');
    const result = diffListings(canonicalListing(tools), canonicalListing(structuredClone(tools)));
    expect(result.findings).toEqual([]);
  });

  it('an absent hint made explicit at its default is info only', () => {
    const { before, after } = withChange('playwright', 'browser_click', (tool) => {
      annotations(tool)['idempotentHint'] = false;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('info');
    expect(briefs(result)).toEqual([
      {
        tool: 'browser_click',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'idempotentHint',
      },
    ]);
    expect(result.findings[0]).toMatchObject({ after: false });
    expect(result.findings[0]).not.toHaveProperty('before');
    expect(result.findings[0]!.explanation).toBe(
      "browser_click's declared idempotentHint changed from absent to false: its effective value stays false, so nothing changes for hosts",
    );
  });

  it('explicit defaults on a tool with no annotations at all are info only', () => {
    const { before, after } = withChange('hello', 'add', (tool) => {
      tool['annotations'] = {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      };
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('info');
    expect(briefs(result)).toEqual(
      ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].map((field) => ({
        tool: 'add',
        kind: 'annotation_declared',
        severity: 'info',
        field,
      })),
    );
  });

  it('an explicit default going back to absent is info only', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      delete annotations(tool)['destructiveHint'];
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('info');
    expect(briefs(result)).toEqual([
      {
        tool: 'write_file',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'destructiveHint',
      },
    ]);
    expect(result.findings[0]).toMatchObject({ before: true });
    expect(result.findings[0]).not.toHaveProperty('after');
  });
});
