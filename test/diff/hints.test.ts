import { describe, expect, it } from 'vitest';
import { HINT_DEFAULTS, postureKey, readPosture } from '../../src/diff/index.js';
import { loadListing, toolNamed } from '../listings/support.js';

describe('hints', () => {
  it('has the pessimistic defaults of the MCP schema', () => {
    expect(HINT_DEFAULTS).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('reads an unannotated tool as its defaults', () => {
    const posture = readPosture(toolNamed(loadListing('hello'), 'echo'));
    expect(posture).toEqual({
      readOnlyHint: { declared: 'absent', effective: false },
      destructiveHint: { declared: 'absent', effective: true },
      idempotentHint: { declared: 'absent', effective: false },
      openWorldHint: { declared: 'absent', effective: true },
    });
    expect(postureKey(posture)).toBe('rDiO');
  });

  it('reads declared values and partial annotations', () => {
    const posture = readPosture(toolNamed(loadListing('filesystem'), 'read_file'));
    expect(posture.readOnlyHint).toEqual({ declared: true, effective: true });
    expect(posture.destructiveHint).toEqual({ declared: 'absent', effective: true });
    expect(posture.openWorldHint).toEqual({ declared: false, effective: false });
    // destructive/idempotent are not part of a read-only tool's posture
    expect(postureKey(posture)).toBe('R--o');
  });

  it('treats non-boolean values as invalid and absent', () => {
    for (const value of ['true', null, 1, 0, {}, []]) {
      const posture = readPosture({
        name: 't',
        annotations: { readOnlyHint: value, openWorldHint: value },
      });
      expect(posture.readOnlyHint).toEqual({ declared: { invalid: value }, effective: false });
      expect(posture.openWorldHint).toEqual({ declared: { invalid: value }, effective: true });
    }
  });

  it('ignores annotations that are not an object', () => {
    for (const annotations of [null, 'readOnly', [true], 3]) {
      expect(readPosture({ name: 't', annotations }).readOnlyHint).toEqual({
        declared: 'absent',
        effective: false,
      });
    }
  });

  it('does not read hints from the prototype', () => {
    const annotations = Object.create({ readOnlyHint: true }) as Record<string, unknown>;
    expect(readPosture({ name: 't', annotations }).readOnlyHint.effective).toBe(false);
  });
});
