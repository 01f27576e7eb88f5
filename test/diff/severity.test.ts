import { describe, expect, it } from 'vitest';
import {
  SEVERITIES,
  changeSeverity,
  compareSeverity,
  escalate,
  isSeverity,
  maxSeverity,
  severityAtLeast,
} from '../../src/diff/index.js';

describe('severity', () => {
  it('orders critical > high > medium > low > info > none', () => {
    expect(SEVERITIES).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    const sorted = (['low', 'none', 'critical', 'info', 'high', 'medium'] as const)
      .slice()
      .sort(compareSeverity);
    expect(sorted).toEqual(['none', 'info', 'low', 'medium', 'high', 'critical']);
  });

  it('escalates one level, capped at critical', () => {
    expect(escalate('info')).toBe('low');
    expect(escalate('low')).toBe('medium');
    expect(escalate('medium')).toBe('high');
    expect(escalate('high')).toBe('critical');
    expect(escalate('critical')).toBe('critical');
  });

  it('a change has its highest finding severity, none when empty', () => {
    expect(changeSeverity([])).toBe('none');
    expect(changeSeverity([{ severity: 'low' }, { severity: 'high' }, { severity: 'info' }])).toBe(
      'high',
    );
    expect(maxSeverity(['info', 'info'])).toBe('info');
  });

  it('compares against a threshold', () => {
    expect(severityAtLeast('high', 'medium')).toBe(true);
    expect(severityAtLeast('medium', 'medium')).toBe(true);
    expect(severityAtLeast('low', 'medium')).toBe(false);
    expect(severityAtLeast('none', 'info')).toBe(false);
    expect(isSeverity('critical')).toBe(true);
    expect(isSeverity('none')).toBe(false);
    expect(isSeverity('CRITICAL')).toBe(false);
  });
});
