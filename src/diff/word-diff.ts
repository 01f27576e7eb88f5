/**
 * A word-level diff of two texts (a description, a schema written out): the parts they
 * share, and what was removed and added, in reading order. Pure.
 *
 * Tokens are runs of letters and digits, runs of whitespace, and every other character on
 * its own, so that an invisible character slipped between two words is a change of its
 * own rather than a changed word. The shortest edit script is Myers' O(ND) algorithm on
 * the tokens left once the common prefix and suffix are set aside; past `maxEdits` token
 * edits (two unrelated megabyte schemas) the middle is shown as removed, then added,
 * which is still true, only coarser.
 */

export type DiffOp = 'same' | 'removed' | 'added';

export interface DiffPart {
  op: DiffOp;
  text: string;
}

const TOKEN = /\s+|[\p{L}\p{N}_]+|[^]/gu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

export function wordDiff(
  before: string,
  after: string,
  options: { maxEdits?: number } = {},
): DiffPart[] {
  const a = tokenize(before);
  const b = tokenize(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const parts: DiffPart[] = [];
  push(parts, 'same', a.slice(0, start).join(''));
  const middle = editScript(a.slice(start, endA), b.slice(start, endB), options.maxEdits ?? 2_000);
  for (const part of middle) push(parts, part.op, part.text);
  push(parts, 'same', a.slice(endA).join(''));
  return parts;
}

/** True when the diff has anything but shared text. */
export function hasEdits(parts: readonly DiffPart[]): boolean {
  return parts.some((part) => part.op !== 'same');
}

function push(parts: DiffPart[], op: DiffOp, text: string): void {
  if (text === '') return;
  const last = parts.at(-1);
  if (last?.op === op) last.text += text;
  else parts.push({ op, text });
}

/** Myers' greedy forward search, keeping each round's frontier to walk the path back. */
function editScript(a: readonly string[], b: readonly string[], maxEdits: number): DiffPart[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 && m === 0) return [];
  const coarse = (): DiffPart[] => [
    { op: 'removed', text: a.join('') },
    { op: 'added', text: b.join('') },
  ];
  if (n === 0 || m === 0) return coarse().filter((part) => part.text !== '');
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const frontier = new Int32Array(2 * max + 3);
  const rounds: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!);
      let x = down ? frontier[offset + k + 1]! : frontier[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      frontier[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    rounds.push(frontier.slice());
  }
  if (found < 0) return coarse();

  // Walk back from (n, m), one edit per round, collecting shared runs between edits.
  const reversed: DiffPart[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const previous = rounds[d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && previous[offset + k - 1]! < previous[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = previous[offset + previousK]!;
    const previousY = previousX - previousK;
    const startX = down ? previousX : previousX + 1;
    if (x > startX) reversed.push({ op: 'same', text: a.slice(startX, x).join('') });
    if (down) reversed.push({ op: 'added', text: b[previousY]! });
    else reversed.push({ op: 'removed', text: a[previousX]! });
    x = previousX;
    y = previousY;
  }
  if (x > 0) reversed.push({ op: 'same', text: a.slice(0, x).join('') });
  const parts: DiffPart[] = [];
  for (const part of reversed.reverse()) push(parts, part.op, part.text);
  return parts;
}
