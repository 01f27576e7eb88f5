import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { annotations, loadListing, toolNamed, withChange } from '../listings/support.js';
import { briefs, only } from './support.js';

/** A listing as it was before its vendor declared any hints on `names`. */
function withoutHints(tools: RawTool[], names: readonly string[]): RawTool[] {
  const copy = structuredClone(tools);
  for (const name of names) {
    const tool = toolNamed(copy, name);
    const kept = Object.fromEntries(
      Object.entries(annotations(tool)).filter(([key]) => !key.endsWith('Hint')),
    );
    tool['annotations'] = kept;
  }
  return copy;
}

describe('first declarations are graded by the tool’s own text (issue 11, precision)', () => {
  it('a first declaration consistent with the name is low (read_graph declared read-only)', () => {
    const after = loadListing('memory');
    const before = withoutHints(after, ['read_graph']);
    const relaxed = diffListings(before, after).findings.filter(
      (f) => f.kind === 'annotation_relaxed',
    );
    expect(relaxed.map((f) => [f.field, f.severity])).toEqual([
      ['readOnlyHint', 'low'],
      ['openWorldHint', 'low'],
    ]);
    expect(relaxed[0]!.record.severity.basis).toContain('support ("read")');
  });

  it('a first declaration the tool’s text contradicts stays critical', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      tool['annotations'] = { readOnlyHint: true };
    });
    const start = withoutHints(before, ['delete_entities']);
    const relaxed = only(diffListings(start, after), 'annotation_relaxed', 'readOnlyHint');
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.basis).toContain('contradicts ("delete")');
  });

  /** read_graph declared read-only after `false`, with `edit` applied to its new version. */
  function readGraphCorrected(edit: (tool: RawTool) => void = () => {}) {
    const { before, after } = withChange('memory', 'read_graph', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
      edit(tool);
    });
    toolNamed(before, 'read_graph')['annotations'] = {
      ...annotations(toolNamed(before, 'read_graph')),
      readOnlyHint: false,
    };
    return only(diffListings(before, after), 'annotation_relaxed');
  }

  it('a declared value that flips to what the unchanged name supports is medium', () => {
    const relaxed = readGraphCorrected();
    expect(relaxed.severity).toBe('medium');
    expect(relaxed.record.severity.basis).toContain('support ("read")');
  });

  it('a declared value that flips along with a new description keeps the table’s severity', () => {
    const relaxed = readGraphCorrected((tool) => {
      tool['description'] = 'Read the entire knowledge graph, then forget it';
    });
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.basis).toBeNull();
  });

  it('a declared value that flips against the tool’s action keeps the table’s severity', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    });
    toolNamed(before, 'delete_entities')['annotations'] = { readOnlyHint: false };
    const relaxed = only(diffListings(before, after), 'annotation_relaxed', 'readOnlyHint');
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.basis).toBeNull();
  });

  it('an unsupported first declaration is one level below the table', () => {
    const after = loadListing('seqthink');
    const before = withoutHints(after, []);
    const tool = toolNamed(after, 'sequentialthinking');
    tool['annotations'] = { readOnlyHint: true };
    const plain = structuredClone(before);
    toolNamed(plain, 'sequentialthinking')['annotations'] = {};
    // With other tools around, one tool alone is not a vendor adopting annotations.
    const others = loadListing('hello');
    const result = diffListings([...plain, ...others], [...after, ...others]);
    expect(only(result, 'annotation_relaxed', 'readOnlyHint').severity).toBe('high');
  });

  it('a release declaring hints on most tools at once is a vendor adopting annotations', () => {
    const after = loadListing('playwright');
    // The label playwright later reversed: browser_close declared read-only.
    toolNamed(after, 'browser_close')['annotations'] = {
      title: 'Close browser',
      readOnlyHint: true,
      openWorldHint: true,
    };
    const before = withoutHints(
      after,
      after.map((tool) => tool.name),
    );
    const result = diffListings(before, after);
    // browser_close says it closes: contradicted, so still an alert.
    const close = result.findings.filter(
      (f) => f.tool === 'browser_close' && f.kind === 'annotation_relaxed',
    );
    expect(close.map((f) => [f.field, f.severity])).toEqual([['readOnlyHint', 'critical']]);
    const others = result.findings.filter((f) => f.tool !== 'browser_close');
    expect(
      others.every((f) => f.severity === 'low' || f.severity === 'info' || f.severity === 'medium'),
    ).toBe(true);
  });

  it('the other reversed label, move_file declared non-destructive, alerts at medium', () => {
    const after = loadListing('filesystem');
    annotations(toolNamed(after, 'move_file'))['destructiveHint'] = false;
    const before = withoutHints(
      after,
      after.map((tool) => tool.name),
    );
    const relaxed = diffListings(before, after).findings.filter(
      (f) => f.tool === 'move_file' && f.kind === 'annotation_relaxed',
    );
    expect(relaxed.map((f) => [f.field, f.severity])).toEqual([
      ['destructiveHint', 'medium'],
      ['openWorldHint', 'low'],
    ]);
  });
});

describe('escalation only for substantive changes (issue 11, precision)', () => {
  /** write_file flips declared destructive true → false (high) along with `edit`. */
  function relaxedWith(edit: (tool: RawTool) => void) {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      annotations(tool)['destructiveHint'] = false;
      edit(tool);
    });
    return only(diffListings(before, after), 'annotation_relaxed');
  }
  const schema = (tool: RawTool) => tool['inputSchema'] as Record<string, unknown>;

  it.each([
    [
      'additionalProperties removed',
      (tool: RawTool) => delete schema(tool)['additionalProperties'],
    ],
    [
      '$schema added',
      (tool: RawTool) => (schema(tool)['$schema'] = 'https://json-schema.org/draft/2020-12/schema'),
    ],
    ['required reordered', (tool: RawTool) => (schema(tool)['required'] as string[]).reverse()],
    [
      'integer bounds at MAX_SAFE_INTEGER',
      (tool: RawTool) => {
        const properties = schema(tool)['properties'] as Record<string, Record<string, unknown>>;
        properties['path'] = { ...properties['path'], maxLength: Number.MAX_SAFE_INTEGER };
      },
    ],
    ['trailing whitespace', (tool: RawTool) => (tool['description'] += '  \n')],
  ])('%s does not escalate', (_what, edit) => {
    const plain = relaxedWith(() => {});
    expect(plain.severity).toBe('high');
    const edited = relaxedWith(edit);
    expect(edited.severity).toBe('high');
    expect(edited.record.severity.escalations).toEqual([]);
  });

  it('a path that differs by machine is only a path: the words around it still count', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      tool['description'] += ' Allowed: /home/alice/projects';
    });
    const relaxed = structuredClone(after);
    const tool = toolNamed(relaxed, 'write_file');
    annotations(tool)['destructiveHint'] = false;
    tool['description'] = (tool['description'] as string).replace('/home/alice', '/Users/bob');
    expect(before).toBeDefined();
    expect(only(diffListings(after, relaxed), 'annotation_relaxed').severity).toBe('high');
  });

  it('a property made required does escalate', () => {
    const relaxed = relaxedWith((tool) => {
      const s = schema(tool);
      s['properties'] = { ...(s['properties'] as object), mode: { type: 'string' } };
      s['required'] = [...(s['required'] as string[]), 'mode'];
    });
    expect(relaxed.severity).toBe('critical');
    expect(relaxed.record.severity.escalations).toEqual([
      'its input schema changed in the same change',
    ]);
  });
});

describe('contradiction keywords are the tool’s own action (issue 11, precision)', () => {
  const readOnlyWith = (description: string) =>
    withChange('filesystem', 'read_text_file', (tool) => {
      tool['description'] = description;
    });

  it.each([
    ['inside an identifier', 'Reads a file; output is cut at the fileWriteLineLimit setting.'],
    ['naming another tool', 'Reads a file. Use this instead of execute_command with cat.'],
    ['in a negation', 'Reads a file. It does not write, delete or overwrite anything.'],
    ['instead of', 'Reads a file instead of executing commands.'],
  ])('%s is no contradiction', (_what, description) => {
    const { before, after } = readOnlyWith(description);
    expect(briefs(diffListings(before, after)).map((b) => b.kind)).toEqual(['description_changed']);
  });

  it('the tool’s own verb still is', () => {
    const { before, after } = readOnlyWith('Reads a file, then deletes it.');
    expect(only(diffListings(before, after), 'annotation_contradiction').severity).toBe('medium');
  });
});

describe('renames that tolerate small edits (issue 11, precision)', () => {
  it('a rename with a trailing space and a relaxation is tool_renamed plus the critical relaxation', () => {
    const before = loadListing('filesystem');
    const after = structuredClone(before).filter((tool) => tool.name !== 'write_file');
    const renamed = structuredClone(toolNamed(before, 'write_file'));
    renamed.name = 'write_text_file';
    renamed['description'] += ' ';
    annotations(renamed)['readOnlyHint'] = true;
    after.push(renamed);
    const result = diffListings(before, after);
    expect(briefs(result).filter((b) => b.tool === 'write_text_file')).toEqual([
      {
        tool: 'write_text_file',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      {
        tool: 'write_text_file',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
      { tool: 'write_text_file', kind: 'tool_renamed', severity: 'low' },
      {
        tool: 'write_text_file',
        kind: 'description_changed',
        severity: 'low',
        field: 'description',
      },
    ]);
    expect(only(result, 'tool_renamed').record.renamedFrom).toBe('write_file');
  });

  it('one extra optional property and one sentence trimmed still pair', () => {
    const before = loadListing('filesystem');
    const after = structuredClone(before).filter((tool) => tool.name !== 'edit_file');
    const renamed = structuredClone(toolNamed(before, 'edit_file'));
    renamed.name = 'patch_file';
    renamed['description'] = (renamed['description'] as string).replace(
      ' Returns a git-style diff showing the changes made.',
      '',
    );
    const schema = renamed['inputSchema'] as { properties: Record<string, unknown> };
    schema.properties['encoding'] = { type: 'string' };
    after.push(renamed);
    expect(only(diffListings(before, after), 'tool_renamed').record.renamedFrom).toBe('edit_file');
  });

  it('a different tool is not a rename', () => {
    const before = loadListing('filesystem');
    const after = structuredClone(before).filter((tool) => tool.name !== 'edit_file');
    after.push({ ...structuredClone(toolNamed(before, 'list_directory')), name: 'ls' });
    expect(diffListings(before, after).findings.some((f) => f.kind === 'tool_renamed')).toBe(false);
  });
});
