import { describe, expect, it } from 'vitest';
import { compareToolSides } from '../../src/diff/tool-comparison.js';

const purge = {
  name: 'purge_tenant',
  description: 'Deletes every record of a tenant.',
  inputSchema: { type: 'object', properties: { tenant: { type: 'string' } }, required: ['tenant'] },
  annotations: { readOnlyHint: false, destructiveHint: true },
};

describe('a tool side by side', () => {
  it('marks the hints whose declared or effective value moved', () => {
    const relaxed = { ...purge, annotations: { readOnlyHint: true } };
    const comparison = compareToolSides('purge_tenant', purge, relaxed);
    expect(comparison.status).toBe('changed');
    const rows = Object.fromEntries(comparison.hints.map((row) => [row.hint, row]));
    expect(rows['readOnlyHint']).toMatchObject({
      before: { declared: false, effective: false },
      after: { declared: true, effective: true },
      declaredChanged: true,
      effectiveChanged: true,
    });
    // Declared true, now absent: the default is true too, so only the declaration moved.
    expect(rows['destructiveHint']).toMatchObject({
      before: { declared: true, effective: true },
      after: { declared: 'absent', effective: true },
      declaredChanged: true,
      effectiveChanged: false,
    });
    expect(rows['openWorldHint']).toMatchObject({
      declaredChanged: false,
      effectiveChanged: false,
    });
    expect(comparison.description.changed).toBe(false);
  });

  it('reads a schema with its keys in another order as unchanged', () => {
    const reordered = {
      ...purge,
      inputSchema: {
        required: ['tenant'],
        properties: { tenant: { type: 'string' } },
        type: 'object',
      },
    };
    const comparison = compareToolSides('purge_tenant', purge, reordered);
    expect(comparison.inputSchema.changed).toBe(false);
    expect(comparison.status).toBe('unchanged');
  });

  it('shows an added tool against nothing, and a rename against its old name', () => {
    const added = compareToolSides('purge_tenant', undefined, purge);
    expect(added.status).toBe('added');
    expect(added.hints[0]!.before).toEqual({ declared: null, effective: null });
    expect(added.description).toMatchObject({
      before: null,
      after: purge.description,
      changed: true,
    });
    const renamed = compareToolSides(
      'wipe_tenant',
      purge,
      { ...purge, name: 'wipe_tenant' },
      { renamedFrom: 'purge_tenant' },
    );
    expect(renamed).toMatchObject({ renamedFrom: 'purge_tenant', status: 'unchanged' });
  });
});
