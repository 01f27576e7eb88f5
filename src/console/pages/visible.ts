import { codePointLabel, hiddenRuns, LONG_LINE_BREAKS } from '../../text/visible-text.js';

/**
 * Server text split into what a reader sees and the visible escapes of what they would not
 * (`⟦U+200B⟧`, `⟦64 × whitespace⟧`), so that the console can mark the escapes. The
 * judgment of what is hidden is the diff's own (src/text/visible-text.ts: the same one that
 * reports hidden_characters and escapes text in alerts and on the terminal), and the
 * escapes read as `visibleText` writes them. Nothing is dropped. Pure.
 */
export interface Segment {
  text: string;
  hidden: boolean;
}

export function visibleSegments(text: string): Segment[] {
  const runs = hiddenRuns(text);
  if (runs.length === 0) return [{ text, hidden: false }];
  const segments: Segment[] = [];
  let at = 0;
  for (const run of runs) {
    if (run.start > at) segments.push({ text: text.slice(at, run.start), hidden: false });
    if (run.class === 'long-whitespace') {
      const breaks = run.codePoints.filter((code) => code === 0x0a).length;
      segments.push({
        text:
          breaks >= LONG_LINE_BREAKS
            ? `⟦${breaks} line breaks⟧`
            : `⟦${run.codePoints.length} × whitespace⟧`,
        hidden: true,
      });
    } else {
      segments.push({
        text: run.codePoints.map((code) => `⟦${codePointLabel(code)}⟧`).join(''),
        hidden: true,
      });
    }
    at = run.end;
  }
  if (at < text.length) segments.push({ text: text.slice(at), hidden: false });
  return segments;
}

/** The text with its escapes, as one string (for attributes and titles). */
export function visibleString(text: string): string {
  return visibleSegments(text)
    .map((segment) => segment.text)
    .join('');
}
