import { visibleText } from './visible-text.js';

// Apart from format-text.ts: the registry commands print tables of server-supplied text and
// have no use for the rest of the diff engine (docs/cli.md).

/** Line breaks and tabs would break the table: they become spaces. */
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u2028\u2029]+/g;

/**
 * Makes server-supplied text safe to print on a terminal (docs/design.md §9): line breaks become
 * spaces, and every other control character, bidirectional control and invisible code
 * point is shown as a visible escape (`⟦U+001B⟧`, `⟦U+E0041⟧`) instead of reaching the
 * terminal: an escape sequence cannot act once its ESC is printed as text.
 */
export function sanitizeForTerminal(text: string): string {
  return visibleText(text.replace(WHITESPACE_CONTROLS, ' '));
}

/**
 * Control characters a command's own layout never uses: every C0 control but line feed and
 * tab, DEL, and the C1 controls (U+0080–U+009F; a terminal reading UTF-8 may act on them as
 * it does on ESC sequences). Built from a string: as a literal, they trip the linter.
 */
const OUTPUT_CONTROLS = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`, 'g');

/**
 * The last guard before a byte reaches stdout or stderr: what a command prints, whole and
 * with its line breaks, with any control character left in it written as a visible escape.
 * Fields of server text are sanitized where they are formatted (sanitizeForTerminal); this
 * catches a path that forgot to, so no server can move the cursor, retitle the window,
 * print a link or overwrite a line by a carriage return.
 */
export function terminalSafeOutput(text: string): string {
  return text.replace(
    OUTPUT_CONTROLS,
    (char) => `⟦U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`,
  );
}

/**
 * JSON text with DEL and the C1 controls as `\u` escapes, which JSON.stringify leaves raw:
 * the same document to a parser, nothing a terminal acts on when it is printed.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(
    /[\x7f-\x9f]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
