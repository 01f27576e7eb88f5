import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { annotations, loadListing, toolNamed, withChange } from '../listings/support.js';
import { briefs, only } from './support.js';

const describeChange = () =>
  withChange('filesystem', 'write_file', (tool) => {
    tool['description'] = 'Create or replace a file.';
  });

describe('silent_change / no_change_notification', () => {
  it('advertised listChanged and no notification: silent_change, high, tool null', () => {
    const { before, after } = describeChange();
    const result = diffListings(before, after, {
      delivery: { listChangedAdvertised: true, notificationSeen: false },
    });
    expect(result.severity).toBe('high');
    expect(briefs(result)).toEqual([
      { tool: null, kind: 'silent_change', severity: 'high' },
      { tool: 'write_file', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
    expect(result.findings[0]!.record.hints).toBeNull();
    expect(result.findings[0]!.record.control.action).toBe('restart-host-sessions');
  });

  it('listChanged not advertised: no_change_notification, medium', () => {
    const { before, after } = describeChange();
    const result = diffListings(before, after, {
      delivery: { listChangedAdvertised: false, notificationSeen: false },
    });
    expect(result.severity).toBe('medium');
    expect(briefs(result)).toEqual([
      { tool: null, kind: 'no_change_notification', severity: 'medium' },
      { tool: 'write_file', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
  });

  it('a notification that arrived is no change-level finding', () => {
    const { before, after } = describeChange();
    const result = diffListings(before, after, {
      delivery: { listChangedAdvertised: true, notificationSeen: true },
    });
    expect(briefs(result)).toEqual([
      { tool: 'write_file', kind: 'description_changed', severity: 'low', field: 'description' },
    ]);
  });

  it('without a delivery context there is no change-level finding', () => {
    const { before, after } = describeChange();
    expect(diffListings(before, after).findings.map((f) => f.kind)).toEqual([
      'description_changed',
    ]);
  });
});

describe('flip_flop', () => {
  const HOUR = 60 * 60 * 1000;
  const at = (hours: number) => new Date(Date.UTC(2026, 10, 30, 12) + hours * HOUR).toISOString();
  const withReadOnly = (tools: RawTool[], value: boolean) => {
    const copy = structuredClone(tools);
    annotations(toolNamed(copy, 'delete_entities'))['readOnlyHint'] = value;
    return copy;
  };

  it('a third posture change within 24 h is flip_flop, high', () => {
    const base = loadListing('memory');
    const history = [
      { observedAt: at(0), tools: base },
      { observedAt: at(2), tools: withReadOnly(base, true) },
      { observedAt: at(4), tools: base },
    ];
    const result = diffListings(base, withReadOnly(base, true), { history, now: at(6) });
    expect(result.severity).toBe('critical');
    expect(briefs(result)).toEqual([
      {
        tool: 'delete_entities',
        kind: 'annotation_relaxed',
        severity: 'critical',
        field: 'readOnlyHint',
      },
      { tool: 'delete_entities', kind: 'flip_flop', severity: 'high' },
      {
        tool: 'delete_entities',
        kind: 'annotation_contradiction',
        severity: 'medium',
        field: 'readOnlyHint',
      },
    ]);
    const flip = only(result, 'flip_flop');
    expect(flip.after).toBe(3);
    expect(flip.explanation).toBe(
      "delete_entities's effective posture changed 3 times within 24 h: hints that keep changing cannot be relied on, and each host session holds whichever values it listed",
    );
  });

  it('changes older than 24 h do not count', () => {
    const base = loadListing('memory');
    const history = [
      { observedAt: at(0), tools: base },
      { observedAt: at(2), tools: withReadOnly(base, true) },
      { observedAt: at(4), tools: base },
    ];
    const result = diffListings(base, withReadOnly(base, true), { history, now: at(27) });
    expect(result.findings.map((f) => f.kind)).not.toContain('flip_flop');
  });

  it('a change that leaves the posture alone is never a flip_flop', () => {
    const base = loadListing('memory');
    const history = [
      { observedAt: at(0), tools: base },
      { observedAt: at(1), tools: withReadOnly(base, true) },
      { observedAt: at(2), tools: base },
      { observedAt: at(3), tools: withReadOnly(base, true) },
    ];
    const after = structuredClone(history[3]!.tools) as RawTool[];
    toolNamed(after, 'delete_entities')['description'] = 'Delete entities.';
    const result = diffListings(history[3]!.tools, after, { history, now: at(4) });
    expect(result.findings.map((f) => f.kind)).toEqual(['description_changed']);
  });

  it('counts the change even when history does not end with the before listing', () => {
    const base = loadListing('memory');
    const history = [
      { observedAt: at(0), tools: base },
      { observedAt: at(1), tools: withReadOnly(base, true) },
    ];
    const result = diffListings(base, withReadOnly(base, true), { history, now: at(3) });
    expect(only(result, 'flip_flop').after).toBe(3);
  });
});
