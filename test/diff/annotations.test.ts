import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import { annotations, withChange } from '../listings/support.js';
import { briefs, only } from './support.js';

describe('annotation_relaxed (design §4)', () => {
  it('readOnlyHint false→true is critical', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('critical');
    expect(briefs(result)).toEqual([
      {
        tool: 'write_file',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      // destructive/idempotent stop being read once the tool is read-only: not separate relaxations
      {
        tool: 'write_file',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
    ]);
    const finding = only(result, 'annotation_relaxed');
    expect(finding).toMatchObject({ before: false, after: true });
    expect(finding.explanation).toBe(
      'write_file now claims read-only: a host with a confirmation policy will stop confirming calls to it',
    );
  });

  it('readOnlyHint from absent (default false) to true is critical', () => {
    const { before, after } = withChange('hello', 'add', (tool) => {
      tool['annotations'] = { readOnlyHint: true };
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'add', kind: 'annotation_relaxed', severity: 'critical', field: 'readOnlyHint' },
    ]);
  });

  it('destructiveHint true→false while readOnly stays false is high', () => {
    const { before, after } = withChange('filesystem', 'edit_file', (tool) => {
      annotations(tool)['destructiveHint'] = false;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('high');
    expect(briefs(result)).toEqual([
      { tool: 'edit_file', kind: 'annotation_relaxed', severity: 'high', field: 'destructiveHint' },
    ]);
    expect(result.findings[0]).toMatchObject({ before: true, after: false });
  });

  it('destructiveHint declared true, then false, is high', () => {
    const { before, after } = withChange('memory', 'create_entities', (tool) => {
      annotations(tool)['destructiveHint'] = true;
    });
    const relaxed = structuredClone(after);
    annotations(relaxed.find((tool) => tool.name === 'create_entities')!)['destructiveHint'] =
      false;
    expect(before).toBeDefined();
    expect(briefs(diffListings(after, relaxed))).toEqual([
      {
        tool: 'create_entities',
        kind: 'annotation_relaxed',
        severity: 'high',
        field: 'destructiveHint',
      },
    ]);
  });

  it('idempotentHint false→true while readOnly stays false is high', () => {
    const { before, after } = withChange('filesystem', 'edit_file', (tool) => {
      annotations(tool)['idempotentHint'] = true;
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      { tool: 'edit_file', kind: 'annotation_relaxed', severity: 'high', field: 'idempotentHint' },
    ]);
    expect(result.findings[0]!.explanation).toBe(
      'edit_file now claims to be idempotent: a host may retry calls to it after a timeout, repeating their effect',
    );
  });

  it('openWorldHint true→false is medium', () => {
    const { before, after } = withChange('playwright', 'browser_navigate', (tool) => {
      annotations(tool)['openWorldHint'] = false;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('medium');
    expect(briefs(result)).toEqual([
      {
        tool: 'browser_navigate',
        kind: 'annotation_relaxed',
        severity: 'medium',
        field: 'openWorldHint',
      },
    ]);
  });

  it('destructive/idempotent differences are not separate relaxations when readOnly flips to true', () => {
    const { before, after } = withChange('memory', 'create_entities', (tool) => {
      Object.assign(annotations(tool), {
        readOnlyHint: true,
        destructiveHint: true,
        idempotentHint: true,
      });
    });
    expect(briefs(diffListings(before, after))).toEqual([
      {
        tool: 'create_entities',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      {
        tool: 'create_entities',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'destructiveHint',
      },
      {
        tool: 'create_entities',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'idempotentHint',
      },
    ]);
  });

  it('destructive/idempotent changes on a tool that stays read-only are declared only', () => {
    const { before, after } = withChange('memory', 'read_graph', (tool) => {
      Object.assign(annotations(tool), { destructiveHint: true, idempotentHint: false });
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('info');
    expect(briefs(result)).toEqual([
      {
        tool: 'read_graph',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'destructiveHint',
      },
      {
        tool: 'read_graph',
        kind: 'annotation_declared',
        severity: 'info',
        field: 'idempotentHint',
      },
    ]);
    expect(result.findings[0]!.explanation).toBe(
      "read_graph's declared destructiveHint changed from false to true: hosts ignore destructiveHint on a read-only tool, so this changes nothing for them by itself",
    );
  });
});

describe('annotation_tightened', () => {
  it.each([
    ['filesystem', 'read_file', 'readOnlyHint', false, true],
    ['memory', 'create_entities', 'destructiveHint', true, false],
    ['filesystem', 'write_file', 'idempotentHint', false, true],
    ['filesystem', 'read_text_file', 'openWorldHint', true, false],
  ] as const)('%s %s %s → %s is low', (fixture, tool, hint, value, previous) => {
    const { before, after } = withChange(fixture, tool, (t) => {
      annotations(t)[hint] = value;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('low');
    expect(briefs(result)).toEqual([
      { tool, kind: 'annotation_tightened', severity: 'low', field: hint },
    ]);
    expect(result.findings[0]).toMatchObject({ before: previous, after: value });
  });
});

describe('annotation_invalid', () => {
  it('a string "true" counts as absent and is medium, not a relaxation', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      annotations(tool)['readOnlyHint'] = 'true';
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('medium');
    expect(briefs(result)).toEqual([
      { tool: 'write_file', kind: 'annotation_invalid', severity: 'medium', field: 'readOnlyHint' },
    ]);
    expect(result.findings[0]).toMatchObject({ before: false, after: 'true' });
    expect(result.findings[0]!.explanation).toBe(
      'write_file declares readOnlyHint as "true", which is not a boolean: hosts treat it as absent, which means false',
    );
  });

  it('null counts as absent (destructive stays true)', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      annotations(tool)['destructiveHint'] = null;
    });
    const result = diffListings(before, after);
    expect(briefs(result)).toEqual([
      {
        tool: 'delete_entities',
        kind: 'annotation_invalid',
        severity: 'medium',
        field: 'destructiveHint',
      },
    ]);
    expect(result.findings[0]).toHaveProperty('after', null);
  });

  it('a number counts as absent: the default is reported too when it differs', () => {
    const { before, after } = withChange('everything', 'gzip-file-as-resource', (tool) => {
      annotations(tool)['idempotentHint'] = 1;
    });
    const result = diffListings(before, after);
    expect(result.severity).toBe('medium');
    expect(briefs(result)).toEqual([
      {
        tool: 'gzip-file-as-resource',
        kind: 'annotation_invalid',
        severity: 'medium',
        field: 'idempotentHint',
      },
      {
        tool: 'gzip-file-as-resource',
        kind: 'annotation_tightened',
        severity: 'low',
        field: 'idempotentHint',
      },
    ]);
  });

  it('an added tool with an invalid hint', () => {
    const before = withChange('hello', 'echo', () => {}).before;
    const after = [
      ...structuredClone(before),
      { name: 'shout', inputSchema: { type: 'object' }, annotations: { openWorldHint: 'no' } },
    ];
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'shout', kind: 'annotation_invalid', severity: 'medium', field: 'openWorldHint' },
      { tool: 'shout', kind: 'tool_added', severity: 'low' },
    ]);
  });
});

describe('annotation_contradiction', () => {
  it('an added tool that claims read-only but says it purges', () => {
    const before = withChange('memory', 'read_graph', () => {}).before;
    const after = [
      ...structuredClone(before),
      {
        name: 'purge_tenant',
        description: 'Purges every record of a tenant.',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
      },
    ];
    const result = diffListings(before, after);
    expect(result.severity).toBe('medium');
    expect(briefs(result)).toEqual([
      {
        tool: 'purge_tenant',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
      { tool: 'purge_tenant', kind: 'tool_added', severity: 'low' },
    ]);
    expect(result.findings[0]!.explanation).toBe(
      'purge_tenant claims read-only, yet its name says "purge" and its description says "purge": a host that trusts the hint will run it without confirmation',
    );
  });

  it('a changed tool that becomes read-only while its name says delete', () => {
    const { before, after } = withChange('memory', 'delete_relations', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    });
    expect(briefs(diffListings(before, after))).toEqual([
      {
        tool: 'delete_relations',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      {
        tool: 'delete_relations',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
    ]);
  });

  it('a read-only tool whose description starts to say it sends (camelCase name unaffected)', () => {
    const { before, after } = withChange('memory', 'search_nodes', (tool) => {
      tool['description'] = 'Search for nodes and sends the matches to the configured webhook';
    });
    expect(briefs(diffListings(before, after))).toEqual([
      {
        tool: 'search_nodes',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
      { tool: 'search_nodes', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
  });

  it('is not reported again when an unrelated key of the same contradictory tool changes', () => {
    const start = withChange('memory', 'delete_relations', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    }).after;
    const next = structuredClone(start);
    (next.find((t) => t.name === 'delete_relations')!['annotations'] as Record<string, unknown>)[
      'title'
    ] = 'Prune';
    expect(briefs(diffListings(start, next))).toEqual([
      {
        tool: 'delete_relations',
        kind: 'title_changed',
        severity: 'info',
        field: 'annotations.title',
      },
    ]);
  });

  it('a negated verb is no contradiction', () => {
    const { before, after } = withChange('memory', 'read_graph', (tool) => {
      tool['description'] =
        'Read the entire knowledge graph. It does not delete or modify anything.';
    });
    expect(briefs(diffListings(before, after))).toEqual([
      { tool: 'read_graph', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
  });
});
