import { describe, expect, it } from 'vitest';
import { headline } from '../../src/alerts/alert-view.js';
import type { FindingRow } from '../../src/db/schema.js';
import { FINDING_KINDS, baseSeverity, kindEntry } from '../../src/diff/index.js';

/** Design §4's table, row by row. */
const DESIGN_SEVERITY: Record<string, string> = {
  annotation_tightened: 'low',
  annotation_declared: 'info',
  annotation_invalid: 'medium',
  annotation_contradiction: 'medium',
  tool_added: 'low',
  tool_removed: 'low',
  tool_renamed: 'low',
  description_changed: 'low',
  title_changed: 'info',
  input_schema_changed: 'low',
  output_schema_changed: 'low',
  meta_changed: 'info',
  icons_changed: 'info',
  other_changed: 'info',
  silent_change: 'high',
  no_change_notification: 'medium',
  flip_flop: 'high',
  hidden_characters: 'high',
  instruction_injection: 'high',
  tool_shadowing: 'high',
  unversioned_change: 'low',
  client_dependent_listing: 'high',
  prompt_added: 'low',
  prompt_removed: 'low',
  prompt_changed: 'low',
  resource_added: 'low',
  resource_removed: 'low',
  resource_changed: 'low',
  resource_template_added: 'low',
  resource_template_removed: 'low',
  resource_template_changed: 'low',
  instructions_changed: 'medium',
};

describe('the finding catalogue', () => {
  it('declares every kind of design §4 once, at the table’s severity', () => {
    expect([...FINDING_KINDS].sort()).toEqual(
      [...Object.keys(DESIGN_SEVERITY), 'annotation_relaxed'].sort(),
    );
    for (const [kind, severity] of Object.entries(DESIGN_SEVERITY)) {
      expect(baseSeverity(kind as never)).toBe(severity);
    }
    expect(
      ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].map((hint) =>
        baseSeverity('annotation_relaxed', hint),
      ),
    ).toEqual(['critical', 'high', 'high', 'medium']);
  });

  it('gives every kind a headline of its own in the alert view', () => {
    for (const kind of FINDING_KINDS) {
      const row = {
        tool: 'purge_tenant',
        kind,
        field: kind === 'annotation_relaxed' ? 'readOnlyHint' : 'description',
        before: null,
        after: 'x',
        record: {},
      } as unknown as FindingRow;
      const text = headline(row);
      expect(text, kind).not.toBe(`purge_tenant: ${kind}`);
      expect(text.length, kind).toBeGreaterThan(10);
      expect(kindEntry(kind)).toBeDefined();
    }
  });
});
