import { describe, expect, it } from 'vitest';
import { matchRenames, renameKey } from '../../src/diff/index.js';
import { loadListing, toolNamed } from '../listings/support.js';

describe('matchRenames', () => {
  it('pairs tools with identical inputSchema and description', () => {
    const tools = loadListing('memory');
    const old = toolNamed(tools, 'delete_entities');
    const renamed = { ...structuredClone(old), name: 'remove_entities' };
    const other = { name: 'brand_new', inputSchema: { type: 'object' } };
    const result = matchRenames([old], [other, renamed]);
    expect(result.renames).toEqual([{ before: old, after: renamed, exact: true }]);
    expect(result.removed).toEqual([]);
    expect(result.added).toEqual([other]);
  });

  it('ignores key order inside the schema', () => {
    const a = { name: 'a', description: 'd', inputSchema: { type: 'object', properties: {} } };
    const b = { name: 'b', inputSchema: { properties: {}, type: 'object' }, description: 'd' };
    expect(renameKey(a)).toBe(renameKey(b));
    expect(matchRenames([a], [b]).renames).toHaveLength(1);
  });

  it('tells an absent description from an empty one', () => {
    const a = { name: 'a', inputSchema: { type: 'object' } };
    const b = { name: 'b', inputSchema: { type: 'object' }, description: '' };
    expect(matchRenames([a], [b]).renames).toEqual([]);
  });

  it('pairs each removed tool at most once, in the order given', () => {
    const shared = { description: 'same', inputSchema: { type: 'object' } };
    const removed = [
      { name: 'a', ...shared },
      { name: 'b', ...shared },
    ];
    const added = [
      { name: 'x', ...shared },
      { name: 'y', ...shared },
      { name: 'z', ...shared },
    ];
    const result = matchRenames(removed, added);
    expect(result.renames.map((r) => [r.before.name, r.after.name])).toEqual([
      ['a', 'x'],
      ['b', 'y'],
    ]);
    expect(result.added.map((t) => t.name)).toEqual(['z']);
  });
});
