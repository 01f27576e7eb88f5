import { describe, expect, it } from 'vitest';
import { diffListings, formatFindingsText, sanitizeForTerminal } from '../../src/diff/index.js';
import { annotations, loadListing, withChange } from '../listings/support.js';

describe('sanitizeForTerminal', () => {
  it('shows the ESC of an escape sequence as a visible escape, so the sequence cannot act', () => {
    expect(sanitizeForTerminal('a\u001b[31mred\u001b[0m b')).toBe('a⟦U+001B⟧[31mred⟦U+001B⟧[0m b');
    expect(sanitizeForTerminal('x\u001b]0;owned title\u0007y')).toBe(
      'x⟦U+001B⟧]0;owned title⟦U+0007⟧y',
    );
    expect(sanitizeForTerminal('x\u009b2Jy')).toBe('x⟦U+009B⟧2Jy');
    expect(sanitizeForTerminal('end\u001b')).toBe('end⟦U+001B⟧');
  });

  it('turns line breaks into spaces and shows other controls, bidi and invisible characters', () => {
    expect(sanitizeForTerminal('one\r\ntwo\tthree')).toBe('one two three');
    expect(sanitizeForTerminal('a\u0000b\u007fd\u0085e')).toBe('a⟦U+0000⟧b⟦U+007F⟧d⟦U+0085⟧e');
    expect(sanitizeForTerminal('admin\u202egnp.exe')).toBe('admin⟦U+202E⟧gnp.exe');
    expect(sanitizeForTerminal('hi\u{E0041}\u{E0042}')).toBe('hi⟦U+E0041⟧⟦U+E0042⟧');
    expect(sanitizeForTerminal('ig\u200bnore')).toBe('ig⟦U+200B⟧nore');
  });

  it('leaves legitimate text alone: accents, CJK, emoji sequences, Persian joiners', () => {
    for (const text of [
      'plain text, ünïcödé',
      '文件路径必须是绝对路径',
      'family: 👨\u200d👩\u200d👧, heart ❤\ufe0f',
      'می\u200cخواهم',
    ]) {
      expect(sanitizeForTerminal(text)).toBe(text);
    }
  });
});

describe('formatFindingsText', () => {
  it('says so when nothing changed', () => {
    const tools = loadListing('hello');
    expect(formatFindingsText(diffListings(tools, tools))).toBe('No changes. Severity: none.\n');
  });

  it('groups by tool, worst tool first, in aligned columns, with a summary', () => {
    const before = loadListing('filesystem');
    const after = structuredClone(before);
    const byName = (name: string) => after.find((t) => t.name === name)!;
    byName('read_file')['title'] = 'Read';
    annotations(byName('write_file'))['readOnlyHint'] = true;
    annotations(byName('edit_file'))['destructiveHint'] = false;
    const text = formatFindingsText(
      diffListings(before, after, {
        delivery: { listChangedAdvertised: false, notificationSeen: false },
      }),
    );
    const lines = text.split('\n');
    const titles = lines.filter((line) => line !== '' && !line.startsWith(' '));
    expect(titles).toEqual([
      'write_file (critical)',
      'edit_file (high)',
      '(whole listing) (medium)',
      'read_file (info)',
      'Severity: critical. 5 findings on 3 tools (1 critical, 1 high, 2 medium, 1 info).',
    ]);
    const rows = lines.filter((line) => line.startsWith('  '));
    expect(rows[0]).toMatch(/^ {2}SEVERITY +KIND +FIELD +CHANGE +EXPLANATION$/);
    const column = rows[0]!.indexOf('EXPLANATION');
    for (const row of rows.slice(1)) expect(row.slice(column - 2, column)).toBe('  ');
    const relaxed = rows.find(
      (row) => row.includes('annotation_relaxed') && row.includes('write_file'),
    )!;
    expect(relaxed).toContain('readOnlyHint');
    expect(relaxed).toContain('false → true');
    expect(relaxed.slice(column)).toBe(
      'write_file now claims read-only: a host with a confirmation policy will stop confirming calls to it',
    );
  });

  it('shows control characters in server text as visible escapes', () => {
    const { before, after } = withChange('hello', 'echo', (tool) => {
      tool['description'] = 'hi\u001b[2J\u001b]0;pwned\u0007\nthere';
    });
    const after2 = [
      ...after,
      { name: 'evil\u001b[31m\u0085tool', inputSchema: { type: 'object' } },
    ];
    const text = formatFindingsText(diffListings(before, after2));
    const controls = [...text].filter((char) => {
      const code = char.charCodeAt(0);
      return (code < 0x20 && char !== '\n') || (code >= 0x7f && code <= 0x9f);
    });
    expect(controls).toEqual([]);
    expect(text).toContain('evil⟦U+001B⟧[31m⟦U+0085⟧tool (high)');
  });
});
