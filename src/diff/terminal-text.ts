import { visibleText } from './visible-text.js';

// Apart from format-text.ts: the registry commands print tables of server-supplied text and
// have no use for the rest of the diff engine (issue 15).

/** Line breaks and tabs would break the table: they become spaces. */
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u2028\u2029]+/g;

/**
 * Makes server-supplied text safe to print on a terminal (design §9): line breaks become
 * spaces, and every other control character, bidirectional control and invisible code
 * point is shown as a visible escape (`⟦U+001B⟧`, `⟦U+E0041⟧`) instead of reaching the
 * terminal: an escape sequence cannot act once its ESC is printed as text.
 */
export function sanitizeForTerminal(text: string): string {
  return visibleText(text.replace(WHITESPACE_CONTROLS, ' '));
}
