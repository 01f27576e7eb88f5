import { describe, expect, it } from 'vitest';
import { controlFor, diffListings, trustImplication } from '../../src/diff/index.js';
import { annotations, withChange } from '../listings/support.js';
import { only } from './support.js';

const relax = () =>
  withChange('memory', 'delete_entities', (tool) => {
    annotations(tool)['readOnlyHint'] = true;
  });

describe('the interpretation record (design §5)', () => {
  it('carries everything the caller knows, and null for what it does not', () => {
    const { before, after } = relax();
    const result = diffListings(before, after, {
      trust: 'trusted',
      server: 'memory',
      before: {
        firstObserved: '2026-11-30T08:00:00.000Z',
        lastObserved: '2026-11-30T09:55:00.000Z',
      },
      after: { firstObserved: '2026-11-30T10:00:00.000Z' },
      delivery: { listChangedAdvertised: true, notificationSeen: true },
      ttlMs: 60000,
      cacheScope: 'shared',
    });
    const finding = only(result, 'annotation_relaxed');
    expect(finding.record).toEqual({
      server: 'memory',
      tool: 'delete_entities',
      renamedFrom: null,
      listings: {
        before: {
          hash: result.beforeHash,
          firstObserved: '2026-11-30T08:00:00.000Z',
          lastObserved: '2026-11-30T09:55:00.000Z',
        },
        after: {
          hash: result.afterHash,
          firstObserved: '2026-11-30T10:00:00.000Z',
          lastObserved: null,
        },
      },
      trust: {
        level: 'trusted',
        implication:
          'hosts that trust this server act on these hints: a relaxation changes what they confirm and retry',
      },
      hints: {
        readOnlyHint: {
          declaredBefore: false,
          declaredAfter: true,
          effectiveBefore: false,
          effectiveAfter: true,
        },
        destructiveHint: {
          declaredBefore: true,
          declaredAfter: true,
          effectiveBefore: true,
          effectiveAfter: true,
        },
        idempotentHint: {
          declaredBefore: true,
          declaredAfter: true,
          effectiveBefore: true,
          effectiveAfter: true,
        },
        openWorldHint: {
          declaredBefore: false,
          declaredAfter: false,
          effectiveBefore: false,
          effectiveAfter: false,
        },
      },
      effect: 'a host with a confirmation policy will stop confirming calls to it',
      staleSessions: {
        exposure:
          'sessions that listed between 2026-11-30T08:00:00.000Z and 2026-11-30T09:55:00.000Z still hold the old values; a change notification was observed, so hosts that re-list on it have the new values; cached list results expire within 60000 ms (cache scope shared)',
        notificationSeen: true,
        ttlMs: 60000,
        cacheScope: 'shared',
      },
      control: controlFor('critical'),
      severity: { base: 'critical', basis: null, escalations: [] },
      content: null,
    });
    expect(result.beforeHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('defaults to untrusted with unknowns left null', () => {
    const { before, after } = relax();
    const record = only(diffListings(before, after), 'annotation_relaxed').record;
    expect(record.server).toBeNull();
    expect(record.trust).toEqual({
      level: 'untrusted',
      implication:
        'hosts should ignore these hints: a relaxation from an untrusted source is a rug-pull signal',
    });
    expect(record.listings.before.firstObserved).toBeNull();
    expect(record.staleSessions).toEqual({
      exposure:
        'sessions that listed the old listing still hold its values; whether a change notification was sent is not known',
      notificationSeen: null,
      ttlMs: null,
      cacheScope: null,
    });
  });

  it('says something different for each trust level', () => {
    const texts = (['trusted', 'partial', 'untrusted'] as const).map(trustImplication);
    expect(new Set(texts).size).toBe(3);
    expect(trustImplication('partial')).toBe(
      'hosts that partly trust this server may act on these hints: a relaxation should be reviewed before anyone relies on it',
    );
  });

  it('chooses the control by severity', () => {
    expect(controlFor('critical').action).toBe('restart-host-sessions');
    expect(controlFor('high').action).toBe('restart-host-sessions');
    expect(controlFor('medium').action).toBe('review');
    expect(controlFor('low').action).toBe('review');
    expect(controlFor('info').action).toBe('approve-baseline');
  });

  it('uses the escalated severity for the control', () => {
    const { before, after } = withChange('playwright', 'browser_navigate', (tool) => {
      annotations(tool)['openWorldHint'] = false;
      tool['description'] = 'Navigate';
    });
    const relaxed = only(diffListings(before, after), 'annotation_relaxed');
    expect(relaxed.severity).toBe('high');
    expect(relaxed.record.control.action).toBe('restart-host-sessions');
  });

  it('records an invalid declared value as such', () => {
    const { before, after } = withChange('filesystem', 'write_file', (tool) => {
      annotations(tool)['readOnlyHint'] = 'true';
    });
    const record = only(diffListings(before, after), 'annotation_invalid').record;
    expect(record.hints?.readOnlyHint).toEqual({
      declaredBefore: false,
      declaredAfter: { invalid: 'true' },
      effectiveBefore: false,
      effectiveAfter: false,
    });
  });

  it('serializes to JSON with the contract keys first', () => {
    const { before, after } = relax();
    const json = JSON.parse(JSON.stringify(diffListings(before, after)));
    expect(Object.keys(json.findings[0])).toEqual([
      'tool',
      'kind',
      'severity',
      'field',
      'before',
      'after',
      'explanation',
      'record',
    ]);
  });
});
