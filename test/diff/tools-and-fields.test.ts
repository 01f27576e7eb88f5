import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import { annotations, loadListing, toolNamed, withChange } from '../listings/support.js';
import { briefs, only } from './support.js';

describe('tool_added / tool_removed / tool_renamed', () => {
  it('a new name is tool_added, low', () => {
    const before = loadListing('hello');
    const after = structuredClone(before);
    after.push({
      ...structuredClone(toolNamed(before, 'echo')),
      name: 'echo2',
      description: 'Echoes twice',
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('low');
    expect(briefs(result)).toEqual([{ tool: 'echo2', kind: 'tool_added', severity: 'low' }]);
    expect(result.findings[0]!.explanation).toBe(
      'echo2 is a new tool (effectively writes, destructive, not idempotent, open-world): hosts see it only once they list again',
    );
  });

  it('a name that disappears is tool_removed, low', () => {
    const before = loadListing('hello');
    const after = before.filter((tool) => tool.name !== 'debug');
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([{ tool: 'debug', kind: 'tool_removed', severity: 'low' }]);
    expect(result.findings[0]!.record.hints?.readOnlyHint).toEqual({
      declaredBefore: 'absent',
      declaredAfter: null,
      effectiveBefore: false,
      effectiveAfter: null,
    });
  });

  it('same inputSchema and description under a new name is tool_renamed, low', () => {
    const { before, after } = withChange('filesystem', 'move_file', (tool) => {
      tool.name = 'relocate_file';
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      { tool: 'relocate_file', kind: 'tool_renamed', severity: 'low' },
    ]);
    expect(result.findings[0]).toMatchObject({ before: 'move_file', after: 'relocate_file' });
    expect(result.findings[0]!.record.renamedFrom).toBe('move_file');
  });

  it('a rename cannot launder a relaxation', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      tool.name = 'tidy_entities';
      annotations(tool)['readOnlyHint'] = true;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('critical');
    expect(briefs(result)).toEqual([
      {
        tool: 'tidy_entities',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      {
        tool: 'tidy_entities',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
      { tool: 'tidy_entities', kind: 'tool_renamed', severity: 'low' },
    ]);
    const relaxed = only(result, 'annotation_relaxed');
    expect(relaxed.record.renamedFrom).toBe('delete_entities');
    expect(relaxed.record.hints?.readOnlyHint).toEqual({
      declaredBefore: false,
      declaredAfter: true,
      effectiveBefore: false,
      effectiveAfter: true,
    });
  });

  it('a different description under a new name is a removal and an addition', () => {
    const { before, after } = withChange('filesystem', 'move_file', (tool) => {
      tool.name = 'relocate_file';
      tool['description'] = 'Relocate a file.';
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'move_file', kind: 'tool_removed', severity: 'low' },
      { tool: 'relocate_file', kind: 'tool_added', severity: 'low' },
    ]);
  });
});

describe('field changes', () => {
  it('description_changed is low', () => {
    const { before, after } = withChange('seqthink', 'sequentialthinking', (tool) => {
      tool['description'] = 'Think.';
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      {
        tool: 'sequentialthinking',
        kind: 'description_changed',
        severity: 'low',
        field: 'description',
      },
    ]);
    expect(result.findings[0]!.after).toBe('Think.');
  });

  it('title_changed is info, for the top-level title', () => {
    const { before, after } = withChange('everything', 'echo', (tool) => {
      tool['title'] = 'Echo Tool v2';
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      { tool: 'echo', kind: 'title_changed', severity: 'info', field: 'title' },
    ]);
    expect(result.findings[0]).toMatchObject({ after: 'Echo Tool v2' });
    expect(result.findings[0]!.explanation).toBe(
      `echo's title changed from ${JSON.stringify(toolNamed(before, 'echo')['title'])} to "Echo Tool v2": hosts show the new title to users; no host gates calls on it`,
    );
  });

  it('title_changed is info, for annotations.title', () => {
    const { before, after } = withChange('playwright', 'browser_click', (tool) => {
      annotations(tool)['title'] = 'Click anywhere';
    });
    expect(briefs(diffListings(before, after))).toEqual([
      {
        tool: 'browser_click',
        kind: 'title_changed',
        severity: 'info',
        field: 'annotations.title',
      },
    ]);
  });

  it('input_schema_changed is low', () => {
    const { before, after } = withChange('hello', 'add', (tool) => {
      const schema = tool['inputSchema'] as { properties: Record<string, unknown> };
      schema.properties['c'] = { type: 'number' };
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'add', kind: 'input_schema_changed', severity: 'low', field: 'inputSchema' },
    ]);
  });

  it('output_schema_changed is low', () => {
    const { before, after } = withChange('memory', 'read_graph', (tool) => {
      delete tool['outputSchema'];
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      { tool: 'read_graph', kind: 'output_schema_changed', severity: 'low', field: 'outputSchema' },
    ]);
    expect(result.findings[0]).not.toHaveProperty('after');
    expect(result.findings[0]!.explanation).toBe(
      "read_graph's output schema was removed: hosts that validate structured results check them against the new schema",
    );
  });

  it('meta_changed is info', () => {
    const { before, after } = withChange('filesystem', 'read_file', (tool) => {
      tool['_meta'] = { 'io.example/owner': 'platform' };
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'read_file', kind: 'meta_changed', severity: 'info', field: '_meta' },
    ]);
  });

  it('icons_changed is info', () => {
    const { before, after } = withChange('everything', 'echo', (tool) => {
      tool['icons'] = [{ src: 'https://example.com/echo.png', mimeType: 'image/png' }];
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'echo', kind: 'icons_changed', severity: 'info', field: 'icons' },
    ]);
  });

  it('other_changed is info, for any other top-level key', () => {
    const { before, after } = withChange('eslint', 'lint-files', (tool) => {
      tool['execution'] = { taskSupport: 'required' };
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'lint-files', kind: 'other_changed', severity: 'info', field: 'execution' },
    ]);
  });

  it('other_changed is info, for an unknown key inside annotations', () => {
    const { before, after } = withChange('filesystem', 'read_file', (tool) => {
      annotations(tool)['vendorHint'] = true;
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      {
        tool: 'read_file',
        kind: 'other_changed',
        severity: 'info',
        field: 'annotations.vendorHint',
      },
    ]);
    expect(result.findings[0]).toMatchObject({ after: true });
    expect(result.findings[0]).not.toHaveProperty('before');
  });

  it('an annotations value that is not an object reads as no hints and is reported', () => {
    const { before, after } = withChange('filesystem', 'read_file', (tool) => {
      tool['annotations'] = 'readOnly';
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'read_file', kind: 'annotation_tightened', severity: 'low', field: 'readOnlyHint' },
      { tool: 'read_file', kind: 'annotation_tightened', severity: 'low', field: 'openWorldHint' },
      { tool: 'read_file', kind: 'other_changed', severity: 'info', field: 'annotations' },
    ]);
  });
});
