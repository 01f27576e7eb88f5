import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import { annotations, withChange } from '../listings/support.js';
import { briefs, only } from './support.js';

const SILENT = { delivery: { listChangedAdvertised: true, notificationSeen: false } };

describe('escalations (design §4)', () => {
  it('a relaxation with a description change goes one level up', () => {
    const { before, after } = withChange('playwright', 'browser_navigate', (tool) => {
      annotations(tool)['openWorldHint'] = false;
      tool['description'] = 'Navigate to a local page';
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('high');
    expect(briefs(result)).toEqual([
      {
        tool: 'browser_navigate',
        kind: 'annotation_relaxed',
        severity: 'high',
        field: 'openWorldHint',
      },
      {
        tool: 'browser_navigate',
        kind: 'description_changed',
        severity: 'low',
        field: 'description',
      },
    ]);
    const relaxed = only(result, 'annotation_relaxed');
    expect(relaxed.record.severity).toEqual({
      base: 'medium',
      basis: null,
      escalations: ['its description changed in the same change'],
    });
    expect(relaxed.explanation).toBe(
      'browser_navigate no longer claims to reach an open world: a host may stop treating its output as untrusted outside content (raised from medium: its description changed in the same change)',
    );
  });

  it('a relaxation with an inputSchema change goes one level up', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      annotations(tool)['destructiveHint'] = false;
      const schema = tool['inputSchema'] as { properties: object; required: string[] };
      schema.properties = { ...schema.properties, cascade: { type: 'boolean' } };
      schema.required = [...schema.required, 'cascade'];
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      {
        tool: 'delete_entities',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'destructiveHint',
      },
      {
        tool: 'delete_entities',
        kind: 'input_schema_changed',
        severity: 'low',
        field: 'inputSchema',
      },
    ]);
    expect(only(result, 'annotation_relaxed').record.severity.base).toBe('high');
  });

  it('a description and inputSchema change together are one escalation', () => {
    const { before, after } = withChange('playwright', 'browser_navigate', (tool) => {
      annotations(tool)['openWorldHint'] = false;
      tool['description'] = 'Navigate to a local page';
      tool['inputSchema'] = { type: 'object' };
    });
    const relaxed = only(diffListings(before, after), 'annotation_relaxed');
    expect(relaxed.severity).toBe('high');
    expect(relaxed.record.severity.escalations).toEqual([
      'its description and input schema changed in the same change',
    ]);
  });

  it('any relaxation within a silent change goes one level up', () => {
    const { before, after } = withChange('filesystem', 'edit_file', (tool) => {
      annotations(tool)['idempotentHint'] = true;
    });
    const result = diffListings(before, after, SILENT);
    expect(briefs(result)).toEqual([
      { tool: null, kind: 'silent_change', severity: 'high' },
      {
        tool: 'edit_file',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'idempotentHint',
      },
    ]);
    expect(only(result, 'annotation_relaxed').record.severity).toEqual({
      base: 'high',
      basis: null,
      escalations: ['it arrived in a silent change'],
    });
  });

  it('a relaxation within a change that merely lacks notification support is not raised', () => {
    const { before, after } = withChange('filesystem', 'edit_file', (tool) => {
      annotations(tool)['idempotentHint'] = true;
    });
    const result = diffListings(before, after, {
      delivery: { listChangedAdvertised: false, notificationSeen: false },
    });
    expect(only(result, 'annotation_relaxed').severity).toBe('high');
  });

  it('both escalations stack, one level each', () => {
    const { before, after } = withChange('playwright', 'browser_navigate', (tool) => {
      annotations(tool)['openWorldHint'] = false;
      tool['description'] = 'Navigate to a local page';
    });
    const relaxed = only(diffListings(before, after, SILENT), 'annotation_relaxed');
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.escalations).toHaveLength(2);
  });

  it('escalation is capped at critical', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
      tool['description'] = 'Reads nothing, returns nothing.';
    });
    const result = diffListings(before, after, SILENT);
    const relaxed = only(result, 'annotation_relaxed');
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.base).toBe('critical');
    expect(result.severity).toBe('critical');
  });

  it('tightenings and other findings are not raised', () => {
    const { before, after } = withChange('filesystem', 'read_file', (tool) => {
      annotations(tool)['readOnlyHint'] = false;
      tool['description'] = 'Reads or writes a file';
    });
    const result = diffListings(before, after, SILENT);
    expect(briefs(result)).toEqual([
      { tool: null, kind: 'silent_change', severity: 'high' },
      { tool: 'read_file', kind: 'annotation_tightened', severity: 'low', field: 'readOnlyHint' },
      { tool: 'read_file', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
  });
});
