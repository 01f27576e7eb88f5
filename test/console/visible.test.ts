import { describe, expect, it } from 'vitest';
import { visibleText } from '../../src/text/visible-text.js';
import { visibleSegments, visibleString } from '../../src/console/pages/visible.js';

describe('server text made visible for the console', () => {
  it('leaves ordinary text, line breaks and emoji sequences alone', () => {
    expect(visibleSegments('Lists files.\n\tIn a folder 👩‍💻.')).toEqual([
      { text: 'Lists files.\n\tIn a folder 👩‍💻.', hidden: false },
    ]);
  });

  it('shows zero-width, bidi, tag, private-use and control characters as marked escapes', () => {
    expect(visibleSegments('a\u200bb\u202ec\u{e0041}\u{e0042}d\ue000e\u001bf')).toEqual([
      { text: 'a', hidden: false },
      { text: '⟦U+200B⟧', hidden: true },
      { text: 'b', hidden: false },
      { text: '⟦U+202E⟧', hidden: true },
      { text: 'c', hidden: false },
      { text: '⟦U+E0041⟧⟦U+E0042⟧', hidden: true },
      { text: 'd', hidden: false },
      { text: '⟦U+E000⟧', hidden: true },
      { text: 'e', hidden: false },
      { text: '⟦U+001B⟧', hidden: true },
      { text: 'f', hidden: false },
    ]);
  });

  it('reads as the diff engine writes the same text', () => {
    for (const text of ['x\u2066y', `ok${' '.repeat(64)}then`, `a${'\n'.repeat(12)}b`, 'plain']) {
      expect(visibleString(text)).toBe(visibleText(text));
    }
  });
});
