/**
 * Invisible and reordering code points as visible escapes (`[U+200B]`): Unicode tags,
 * zero-width characters, bidi controls and every other format character (Cf), and private
 * use (Co). A hostile server hides instructions in them; a reader of an alert must see
 * that something is there. A zero-width joiner inside an emoji sequence is left alone: it
 * is how those are written. Pure.
 */
const HIDDEN = /[\p{Cf}\p{Co}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

export function makeInvisibleVisible(text: string): string {
  if (!HIDDEN.test(text)) return text;
  const points = [...text];
  return points
    .map((point, index) => {
      if (!HIDDEN.test(point)) return point;
      if (point === '\u200d' && joinsEmoji(points, index)) return point;
      return `[U+${point.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
    })
    .join('');
}

function joinsEmoji(points: readonly string[], index: number): boolean {
  // An emoji presentation selector (U+FE0F) may stand between the emoji and the joiner.
  const before = points[index - 1] === '\ufe0f' ? points[index - 2] : points[index - 1];
  const after = points[index + 1];
  return (
    before !== undefined && after !== undefined && PICTOGRAPH.test(before) && PICTOGRAPH.test(after)
  );
}
