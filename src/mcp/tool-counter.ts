/*
 * Counts the tools of a tools/list answer in its raw bytes, as they arrive, so that the
 * tool cap applies before a page is parsed: a 100,000-tool page parsed whole cost some
 * 150 MB and seconds of the event loop before the cap could refuse it
 * (docs/watch-service.md, "Hostile load"). It reads one JSON-RPC message: the elements of
 * the array under `result.tools`. It is not a validator (a malformed message still goes to
 * the JSON parser, which says what is wrong); it only tracks strings, nesting and the keys
 * of the two outer objects, at a few operations a byte.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Keys longer than this are not remembered: only "result" and "tools" matter. */
const KEY_MAX_BYTES = 16;

export class ToolCounter {
  /** Elements seen so far in `result.tools` of the current message. */
  count = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes of the string being read, while it is short enough to be a key of interest. */
  private text: number[] | null = null;
  /** The last string read at depth 1 and 2, once followed by a colon: the key in force. */
  private lastString: string | null = null;
  private keys: Array<string | null> = [null, null, null];
  /** Depth of the `result.tools` array once open; 0 outside it. */
  private toolsDepth = 0;
  /** An element has begun since the last comma inside the tools array. */
  private elementOpen = false;

  /** Starts over for the next message. */
  reset(): void {
    this.count = 0;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.text = null;
    this.lastString = null;
    this.keys = [null, null, null];
    this.toolsDepth = 0;
    this.elementOpen = false;
  }

  /** Reads more bytes of the message; returns the tool count so far. */
  feed(bytes: Uint8Array): number {
    /** Where the next quote of this chunk is (-1: none), once searched for. */
    let quoteAt = -2;
    let backslashAt = -2;
    for (let i = 0; i < bytes.length; i++) {
      if (this.inString && !this.escaped && this.text === null) {
        // Inside a long string (a huge description): jump to its next quote or backslash
        // with native searches rather than a byte at a time. The places found are kept for
        // the chunk, so that no part of it is searched twice.
        if (quoteAt < i) quoteAt = bytes.indexOf(QUOTE, i);
        if (quoteAt === -1) {
          // No quote in this chunk: only a backslash run at its very end carries over.
          let run = 0;
          while (run < bytes.length - i && bytes[bytes.length - 1 - run] === BACKSLASH) run++;
          this.escaped = run % 2 === 1;
          break;
        }
        if (backslashAt !== -1 && backslashAt < i) backslashAt = bytes.indexOf(BACKSLASH, i);
        i = backslashAt === -1 ? quoteAt : Math.min(quoteAt, backslashAt);
      }
      const byte = bytes[i]!;
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
        } else if (byte === BACKSLASH) {
          this.escaped = true;
        } else if (byte === QUOTE) {
          this.inString = false;
          this.lastString = this.text ? String.fromCharCode(...this.text) : null;
          this.text = null;
          continue;
        }
        if (this.text) {
          if (this.text.length >= KEY_MAX_BYTES) this.text = null;
          else this.text.push(byte);
        }
        continue;
      }
      if (byte <= 0x20) continue; // JSON whitespace
      if (this.toolsDepth > 0 && this.depth === this.toolsDepth && !this.elementOpen) {
        if (byte !== CLOSE_ARRAY && byte !== COMMA) {
          this.elementOpen = true;
          this.count += 1;
        }
      }
      switch (byte) {
        case QUOTE:
          this.inString = true;
          this.text = this.depth <= 2 ? [] : null;
          break;
        case COLON:
          if (this.depth <= 2) this.keys[this.depth] = this.lastString;
          break;
        case COMMA:
          if (this.depth === this.toolsDepth) this.elementOpen = false;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.depth += 1;
          if (
            byte === OPEN_ARRAY &&
            this.depth === 3 &&
            this.keys[1] === 'result' &&
            this.keys[2] === 'tools'
          ) {
            this.toolsDepth = 3;
            this.elementOpen = false;
          }
          if (this.depth <= 2) this.keys[this.depth] = null;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.depth === this.toolsDepth) this.toolsDepth = 0;
          this.depth = Math.max(0, this.depth - 1);
          break;
      }
      this.lastString = byte === QUOTE ? this.lastString : null;
    }
    return this.count;
  }
}

/**
 * The error code of the answer a transport hands the SDK in place of a tools/list page
 * over the tool cap (in JSON-RPC's range for implementation-defined server errors).
 */
export const TOOL_CAP_ERROR_CODE = -32042;

export function toolCapReason(maxTools: number): string {
  return `the server sent a tools/list page with more than ${maxTools} tools (tool cap maxTools=${maxTools}), counted before it was parsed`;
}

/** What the SDK is handed instead of a page over the cap: the listing fails, not the session. */
export function toolCapAnswer(id: string | number, maxTools: number) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: TOOL_CAP_ERROR_CODE, message: toolCapReason(maxTools) },
  };
}
