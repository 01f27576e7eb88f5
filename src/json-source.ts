/*
 * JSON read as a person wrote it: a parse error names its line and column, and the
 * position of any value can be asked for by its JSON Pointer path (for SARIF regions and
 * for messages about one entry of a host's config file). With `comments`, it also reads
 * what host config files are written in: JSON with comments and trailing commas (JSONC,
 * as VS Code and the other editors read their settings).
 */

export interface JsonPosition {
  /** 1-based, as editors count. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
}

/** A path into a JSON document: property names and array indexes, outermost first. */
export type JsonPath = readonly (string | number)[];

export class JsonSyntaxError extends Error {
  constructor(
    readonly problem: string,
    readonly position: JsonPosition,
  ) {
    super(`line ${position.line}, column ${position.column}: ${problem}`);
    this.name = 'JsonSyntaxError';
  }
}

export interface ParseOptions {
  /** `//` and `/* *\/` comments and trailing commas (JSONC). */
  comments?: boolean;
  /**
   * Positions are kept for values this deep at most (the document is depth 0): a listing
   * of megabytes has millions of values, and a location needs the first few levels.
   */
  positionDepth?: number;
}

export interface JsonSource {
  value: unknown;
  /**
   * Where the value at `path` starts: for an object member, its property name. Undefined
   * when there is no such value, or it lies deeper than `positionDepth`.
   */
  position(path: JsonPath): JsonPosition | undefined;
}

/** RFC 6901 form of a path, the key of the position table. */
export function jsonPointer(path: JsonPath): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function describeAt(text: string, at: number): string {
  if (at >= text.length) return 'the end of the file';
  const char = text[at]!;
  return /[\x20-\x7e]/.test(char)
    ? `'${char}'`
    : `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

class Parser {
  private at = 0;
  private readonly lineStarts: number[] = [0];
  readonly offsets = new Map<string, number>();

  constructor(
    private readonly text: string,
    private readonly comments: boolean,
    private readonly positionDepth: number,
  ) {
    for (let i = 0; i < text.length; i++)
      if (text.charCodeAt(i) === 0x0a) this.lineStarts.push(i + 1);
    if (text.charCodeAt(0) === 0xfeff) this.at = 1;
  }

  position(offset: number): JsonPosition {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - this.lineStarts[low]! + 1 };
  }

  private fail(problem: string, at = this.at): never {
    throw new JsonSyntaxError(problem, this.position(at));
  }

  document(): unknown {
    this.space();
    const value = this.value([], 0);
    this.space();
    if (this.at < this.text.length) {
      this.fail(`unexpected ${describeAt(this.text, this.at)} after the end of the document`);
    }
    return value;
  }

  /** Skips whitespace and, in JSONC, comments. */
  private space(): void {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        this.at++;
      } else if (c === 0x2f && (text[this.at + 1] === '/' || text[this.at + 1] === '*')) {
        if (!this.comments) this.fail('comments are not allowed in JSON');
        if (text[this.at + 1] === '/') {
          const end = text.indexOf('\n', this.at);
          this.at = end < 0 ? text.length : end + 1;
        } else {
          const end = text.indexOf('*/', this.at + 2);
          if (end < 0) this.fail('a /* comment is not closed');
          this.at = end + 2;
        }
      } else {
        return;
      }
    }
  }

  private record(path: (string | number)[], depth: number, offset: number): void {
    if (depth <= this.positionDepth) this.offsets.set(jsonPointer(path), offset);
  }

  private value(path: (string | number)[], depth: number): unknown {
    // Recursion: a hostile file must not overflow the stack.
    if (depth > MAX_DEPTH) this.fail(`nested more than ${MAX_DEPTH} levels deep`);
    const text = this.text;
    const c = text[this.at];
    if (c === '{') return this.object(path, depth);
    if (c === '[') return this.array(path, depth);
    if (c === '"') return this.string();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(text);
    if (number) {
      this.at += number[0].length;
      return Number(number[0]);
    }
    this.fail(`expected a value, found ${describeAt(text, this.at)}`);
  }

  private object(path: (string | number)[], depth: number): Record<string, unknown> {
    const opened = this.at;
    this.at++;
    const result: Record<string, unknown> = {};
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return result;
    }
    for (;;) {
      if (this.text[this.at] !== '"') {
        if (this.at >= this.text.length) this.unclosed('an object', opened);
        this.fail(
          `expected a property name in double quotes, found ${describeAt(this.text, this.at)}`,
        );
      }
      const keyAt = this.at;
      const key = this.string();
      this.space();
      if (this.text[this.at] !== ':') {
        this.fail(
          `expected ':' after the property name "${key}", found ${describeAt(this.text, this.at)}`,
        );
      }
      this.at++;
      this.space();
      path.push(key);
      this.record(path, depth + 1, keyAt);
      const value = this.value(path, depth + 1);
      path.pop();
      // As JSON.parse: "__proto__" is an own property, not the prototype.
      Object.defineProperty(result, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const next = this.text[this.at];
      if (next === '}') {
        this.at++;
        return result;
      }
      if (next !== ',') {
        if (this.at >= this.text.length) this.unclosed('an object', opened);
        this.fail(`expected ',' or '}' after a property, found ${describeAt(this.text, this.at)}`);
      }
      const comma = this.at;
      this.at++;
      this.space();
      if (this.text[this.at] === '}') {
        if (!this.comments) this.fail('a trailing comma is not allowed in JSON', comma);
        this.at++;
        return result;
      }
    }
  }

  private array(path: (string | number)[], depth: number): unknown[] {
    const opened = this.at;
    this.at++;
    const result: unknown[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return result;
    }
    for (;;) {
      if (this.at >= this.text.length) this.unclosed('an array', opened);
      path.push(result.length);
      this.record(path, depth + 1, this.at);
      result.push(this.value(path, depth + 1));
      path.pop();
      this.space();
      const next = this.text[this.at];
      if (next === ']') {
        this.at++;
        return result;
      }
      if (next !== ',') {
        if (this.at >= this.text.length) this.unclosed('an array', opened);
        this.fail(`expected ',' or ']' after an item, found ${describeAt(this.text, this.at)}`);
      }
      const comma = this.at;
      this.at++;
      this.space();
      if (this.text[this.at] === ']') {
        if (!this.comments) this.fail('a trailing comma is not allowed in JSON', comma);
        this.at++;
        return result;
      }
    }
  }

  private unclosed(what: string, opened: number): never {
    this.fail(`the file ends inside ${what} opened at line ${this.position(opened).line}`);
  }

  private string(): string {
    const text = this.text;
    const start = this.at;
    let i = start + 1;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c === 0x0a) this.fail('a string is not closed', start);
      if (c < 0x20) this.fail('a control character in a string must be escaped', i);
      if (c === 0x22) break;
      if (c === 0x5c) i++;
      i++;
    }
    this.at = i + 1;
    try {
      // The slice is a JSON string literal: JSON.parse reads its escapes exactly.
      return JSON.parse(text.slice(start, this.at)) as string;
    } catch {
      const escape = text.slice(start, this.at).search(/\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})/);
      return this.fail('invalid escape in a string', start + Math.max(escape, 0));
    }
  }
}

/** Parses `text`; throws JsonSyntaxError naming the line, column and problem. */
export function parseJsonSource(text: string, options: ParseOptions = {}): JsonSource {
  const parser = new Parser(text, options.comments ?? false, options.positionDepth ?? Infinity);
  const value = parser.document();
  const offsets = parser.offsets;
  return {
    value,
    position(path) {
      if (path.length === 0) return parser.position(0);
      const offset = offsets.get(jsonPointer(path));
      return offset === undefined ? undefined : parser.position(offset);
    },
  };
}
