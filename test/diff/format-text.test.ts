import { describe, expect, it } from 'vitest';
import { diffListings, formatFindingsText, sanitizeForTerminal } from '../../src/diff/index.js';
import { annotations, loadListing, withChange } from '../listings/support.js';

describe('sanitizeForTerminal', () => {
  it('removes escape sequences whole', () => {
    expect(sanitizeForTerminal('a\u001b[31mred\u001b[0m b')).toBe('ared b');
    expect(sanitizeForTerminal('x\u001b]0;owned title\u0007y')).toBe('xy');
    expect(sanitizeForTerminal('x\u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\y')).toBe(
      'xlinky',
    );
    expect(sanitizeForTerminal('x\u001bcy')).toBe('xy');
    expect(sanitizeForTerminal('x\u009b2Jy')).toBe('xy');
    expect(sanitizeForTerminal('end\u001b')).toBe('end');
  });

  it('turns line breaks into spaces and drops other C0/C1 controls and bidi overrides', () => {
    expect(sanitizeForTerminal('one\r\ntwo\tthree')).toBe('one two three');
    expect(sanitizeForTerminal('a\u0000b\u0007c\u007fd\u0085e\u009cf')).toBe('abcdef');
    expect(sanitizeForTerminal('admin\u202egnp.exe')).toBe('admingnp.exe');
    expect(sanitizeForTerminal('plain text, ünïcödé')).toBe('plain text, ünïcödé');
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

  it('strips control characters from server text', () => {
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
    expect(text).toContain('eviltool (low)');
  });
});
