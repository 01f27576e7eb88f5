import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, jsonPointer, parseJsonSource } from '../../src/json-source.js';

function syntaxError(text: string, options = {}): JsonSyntaxError {
  try {
    parseJsonSource(text, options);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
  throw new Error(`parsed: ${text}`);
}

describe('parseJsonSource', () => {
  it('reads what JSON.parse reads, to the same value', () => {
    const text = JSON.stringify({
      tools: [{ name: 'a\u2028"\\', n: -1.5e3, ok: true, no: false, none: null, list: [[], {}] }],
      ['__proto__']: { polluted: true },
    });
    const parsed = parseJsonSource(text).value as Record<string, unknown>;
    expect(parsed).toEqual(JSON.parse(text));
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads comments and trailing commas only when asked', () => {
    const text = '{\n  // a comment\n  "a": [1, 2, /* two */],\n}\n';
    expect(parseJsonSource(text, { comments: true }).value).toEqual({ a: [1, 2] });
    expect(syntaxError(text).message).toBe('line 2, column 3: comments are not allowed in JSON');
    expect(syntaxError('{"a": 1,}').message).toBe(
      'line 1, column 8: a trailing comma is not allowed in JSON',
    );
  });

  it('names the line, the column and the problem', () => {
    expect(syntaxError('{\n  "a": 1\n  "b": 2\n}').message).toBe(
      `line 3, column 3: expected ',' or '}' after a property, found '"'`,
    );
    expect(syntaxError('{\n  "a": [1, 2\n').message).toBe(
      'line 3, column 1: the file ends inside an array opened at line 2',
    );
    expect(syntaxError('{"a": tru}').problem).toBe("expected a value, found 't'");
    expect(syntaxError('{"a": "open\n}').problem).toBe('a string is not closed');
    expect(syntaxError('{"a": 1} x').problem).toBe("unexpected 'x' after the end of the document");
    expect(syntaxError('/* never closed', { comments: true }).problem).toBe(
      'a /* comment is not closed',
    );
    expect(syntaxError('['.repeat(5000)).problem).toBe('nested more than 1000 levels deep');
    expect(syntaxError('{a: 1}').problem).toBe(
      "expected a property name in double quotes, found 'a'",
    );
  });

  it('gives the position of a value by its path: an object member at its name', () => {
    const source = parseJsonSource(
      '{\n  "tools": [\n    {\n      "name": "x",\n      "annotations": {"readOnlyHint": true}\n    }\n  ]\n}',
    );
    expect(source.position(['tools', 0])).toEqual({ line: 3, column: 5 });
    expect(source.position(['tools', 0, 'annotations', 'readOnlyHint'])).toEqual({
      line: 5,
      column: 23,
    });
    expect(source.position(['tools', 1])).toBeUndefined();
    expect(
      parseJsonSource('{"a": {"b": {"c": 1}}}', { positionDepth: 2 }).position(['a', 'b', 'c']),
    ).toBeUndefined();
  });

  it('writes paths as RFC 6901 pointers', () => {
    expect(jsonPointer(['a/b', 'c~d', 3])).toBe('/a~1b/c~0d/3');
  });
});
