/**
 * Server text split into what a reader sees and visible escapes (`[U+200B]`) for the code
 * points they would not: format characters (zero-width, bidi controls, Unicode tags),
 * private use, and control characters other than line breaks and tabs. A zero-width joiner
 * inside an emoji sequence is left alone, as in alerts (src/alerts/visible-text.ts). Text
 * is never dropped: a reviewer sees that something is there, and what. Pure.
 */
export interface Segment {
  text: string;
  hidden: boolean;
}

/* eslint-disable no-control-regex -- control characters are what is looked for */
const HIDDEN = /^[\p{Cf}\p{Co}]$/u;
const CONTROL = /^[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]$/u;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const QUICK = /[\p{Cf}\p{Co}\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
/* eslint-enable no-control-regex */

export function visibleSegments(text: string): Segment[] {
  if (!QUICK.test(text)) return [{ text, hidden: false }];
  const points = [...text];
  const segments: Segment[] = [];
  let plain = '';
  points.forEach((point, index) => {
    const hidden =
      CONTROL.test(point) ||
      (HIDDEN.test(point) && !(point === '\u200d' && joinsEmoji(points, index)));
    if (!hidden) {
      plain += point;
      return;
    }
    if (plain !== '') segments.push({ text: plain, hidden: false });
    plain = '';
    const label = `[U+${point.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
    const last = segments.at(-1);
    if (last?.hidden) last.text += label;
    else segments.push({ text: label, hidden: true });
  });
  if (plain !== '') segments.push({ text: plain, hidden: false });
  return segments;
}

/** The text with its escapes, as one string (for attributes and titles). */
export function visibleString(text: string): string {
  return visibleSegments(text)
    .map((segment) => segment.text)
    .join('');
}

function joinsEmoji(points: readonly string[], index: number): boolean {
  const before = points[index - 1] === '\ufe0f' ? points[index - 2] : points[index - 1];
  const after = points[index + 1];
  return (
    before !== undefined && after !== undefined && PICTOGRAPH.test(before) && PICTOGRAPH.test(after)
  );
}
