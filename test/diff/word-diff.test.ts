import { describe, expect, it } from 'vitest';
import { hasEdits, tokenize, wordDiff, type DiffPart } from '../../src/diff/word-diff.js';

/** Each side of a diff, read back from its parts. */
function sides(parts: DiffPart[]): { before: string; after: string } {
  return {
    before: parts
      .filter((part) => part.op !== 'added')
      .map((part) => part.text)
      .join(''),
    after: parts
      .filter((part) => part.op !== 'removed')
      .map((part) => part.text)
      .join(''),
  };
}

describe('word-level diff', () => {
  it('marks the words that changed and keeps the rest shared', () => {
    const parts = wordDiff('Deletes a note for good.', 'Reads a note, never deletes it.');
    expect(sides(parts)).toEqual({
      before: 'Deletes a note for good.',
      after: 'Reads a note, never deletes it.',
    });
    expect(parts.filter((part) => part.op === 'same').map((part) => part.text)).toContain(
      ' a note',
    );
    expect(parts.find((part) => part.op === 'removed')?.text).toBe('Deletes');
    expect(parts.find((part) => part.op === 'added')?.text).toBe('Reads');
  });

  it('makes an invisible character between two words a change of its own', () => {
    const parts = wordDiff('Lists files.', 'Lists\u200b files.');
    expect(parts).toEqual([
      { op: 'same', text: 'Lists' },
      { op: 'added', text: '\u200b' },
      { op: 'same', text: ' files.' },
    ]);
    expect(tokenize('a\u200bb')).toEqual(['a', '\u200b', 'b']);
  });

  it('finds nothing to mark in equal texts, and everything in texts with nothing in common', () => {
    expect(wordDiff('same text', 'same text')).toEqual([{ op: 'same', text: 'same text' }]);
    expect(hasEdits(wordDiff('same text', 'same text'))).toBe(false);
    expect(wordDiff('', 'new')).toEqual([{ op: 'added', text: 'new' }]);
    expect(wordDiff('old', '')).toEqual([{ op: 'removed', text: 'old' }]);
  });

  it('reads back both sides of random edits, and stays exact up to its edit bound', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const words = ['read', 'write', 'delete', 'the', 'note', ',', ' ', '\n', '\u200b', 'tenant'];
    for (let round = 0; round < 200; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 60) },
        () => words[Math.floor(random() * words.length)],
      ).join('');
      const edited = [...text]
        .map((char) =>
          random() < 0.1 ? words[Math.floor(random() * words.length)] : random() < 0.05 ? '' : char,
        )
        .join('');
      expect(sides(wordDiff(text, edited))).toEqual({ before: text, after: edited });
    }
  });

  it('shows two unrelated long texts as removed, then added, past its edit bound', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i}`).join(' ');
    const after = Array.from({ length: 3000 }, (_, i) => `b${i}`).join(' ');
    const parts = wordDiff(before, after, { maxEdits: 100 });
    expect(parts.map((part) => part.op)).toEqual(['removed', 'added']);
    expect(sides(parts)).toEqual({ before, after });
  });
});
