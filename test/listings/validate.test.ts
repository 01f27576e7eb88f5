import { describe, expect, it } from 'vitest';
import { DriftError } from '../../src/errors.js';
import { toolsFromDocument, validateTools } from '../../src/listings/validate.js';
import { loadListing } from './support.js';

function errorOf(run: () => unknown): DriftError {
  try {
    run();
  } catch (error) {
    if (error instanceof DriftError) return error;
    throw error;
  }
  throw new Error('expected a DriftError');
}

describe('validateTools', () => {
  it('accepts a real listing and returns its tools', () => {
    const tools = loadListing('memory');
    const validated = validateTools(tools);
    expect(validated).toEqual(tools);
    expect(validated).not.toBe(tools);
    expect(validateTools([])).toEqual([]);
  });

  it('rejects a value that is not an array', () => {
    const error = errorOf(() => validateTools({ tools: [] }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe('the tools list must be a JSON array of tools, but it is an object');
    expect(errorOf(() => validateTools('[]')).message).toBe(
      'the tools list must be a JSON array of tools, but it is a string ("[]")',
    );
    expect(errorOf(() => validateTools(null)).message).toBe(
      'the tools list must be a JSON array of tools, but it is null',
    );
  });

  it('rejects an element that is not an object, naming its index', () => {
    expect(errorOf(() => validateTools([{ name: 'a' }, 42])).message).toBe(
      'the tools list: the tool at index 1 must be an object, but it is a number (42)',
    );
    expect(errorOf(() => validateTools([[{ name: 'a' }]])).message).toBe(
      'the tools list: the tool at index 0 must be an object, but it is an array',
    );
    expect(errorOf(() => validateTools([{ name: 'a' }, null])).message).toBe(
      'the tools list: the tool at index 1 must be an object, but it is null',
    );
  });

  it('rejects a tool without a non-empty string name, naming its index', () => {
    expect(errorOf(() => validateTools([{ name: 'a' }, { description: 'x' }])).message).toBe(
      'the tools list: the tool at index 1 needs a non-empty string "name", but it has none',
    );
    expect(errorOf(() => validateTools([{ name: '' }])).message).toBe(
      'the tools list: the tool at index 0 needs a non-empty string "name", but it is a string ("")',
    );
    expect(errorOf(() => validateTools([{ name: 7 }])).message).toBe(
      'the tools list: the tool at index 0 needs a non-empty string "name", but it is a number (7)',
    );
  });

  it('rejects two tools with one name, naming it and both indexes', () => {
    const error = errorOf(() => validateTools([{ name: 'a' }, { name: 'b' }, { name: 'a' }]));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      'the tools list: two tools are named "a" (at index 0 and 2); tool names must be unique',
    );
  });

  it('quotes and shortens hostile names in messages', () => {
    const name = `evil\u001b[2J${'x'.repeat(200)}`;
    const message = errorOf(() => validateTools([{ name }, { name }])).message;
    expect(message).not.toContain('\u001b');
    expect(message).toContain('"evil\\u001b[2J');
    expect(message.length).toBeLessThan(200);
  });

  it('names the value in messages when told what it is', () => {
    expect(errorOf(() => validateTools(3, 'AFTER.json')).message).toBe(
      'AFTER.json must be a JSON array of tools, but it is a number (3)',
    );
  });
});

describe('toolsFromDocument', () => {
  it('accepts a tools/list result and ignores its other keys', () => {
    const tools = loadListing('hello');
    expect(toolsFromDocument({ tools, nextCursor: 'abc', _meta: {} })).toEqual(tools);
  });

  it('accepts a bare array of tools', () => {
    const tools = loadListing('hello');
    expect(toolsFromDocument(tools)).toEqual(tools);
  });

  it('explains what it expected', () => {
    expect(errorOf(() => toolsFromDocument({ result: [] })).message).toBe(
      'the document must be a tools/list result ({"tools": [...]}) or a JSON array of tools, but it is an object without a "tools" key',
    );
    expect(errorOf(() => toolsFromDocument('x', 'BEFORE.json')).message).toBe(
      'BEFORE.json must be a tools/list result ({"tools": [...]}) or a JSON array of tools, but it is a string ("x")',
    );
    expect(errorOf(() => toolsFromDocument({ tools: {} }, 'BEFORE.json')).message).toBe(
      '"tools" in BEFORE.json must be a JSON array of tools, but it is an object',
    );
    expect(errorOf(() => toolsFromDocument({ tools: [{ name: 'a' }, 'b'] })).message).toBe(
      '"tools" in the document: the tool at index 1 must be an object, but it is a string ("b")',
    );
  });
});
