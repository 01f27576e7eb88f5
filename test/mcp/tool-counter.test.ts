import { describe, expect, it } from 'vitest';
import { ToolCounter } from '../../src/mcp/tool-counter.js';

/** Feeds `text` in pieces of `size` bytes (1: byte by byte, so every state crosses a cut). */
function countIn(text: string, size: number): number {
  const bytes = Buffer.from(text, 'utf8');
  const counter = new ToolCounter();
  for (let at = 0; at < bytes.length; at += size) counter.feed(bytes.subarray(at, at + size));
  return counter.count;
}

const answer = (tools: unknown[], extra: object = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, result: { ...extra, tools } });

const awkward = [
  { name: 'a', description: 'brackets ] } [ { and "quotes\\" and , commas', inputSchema: {} },
  { name: 'b', inputSchema: { type: 'object', properties: { tools: { type: 'array' } } } },
  { name: 'c\u001b[31m', annotations: { tools: [1, 2, 3] } },
  'not an object',
  42,
  null,
  [],
  { name: 'é😀', description: 'x'.repeat(5000) },
];

describe('ToolCounter', () => {
  it('counts the elements of result.tools, however the bytes are cut', () => {
    for (const size of [1, 3, 64, 1 << 20]) {
      expect(countIn(answer(awkward), size)).toBe(awkward.length);
      expect(countIn(answer([]), size)).toBe(0);
      expect(countIn(answer([{ name: 'x' }]), size)).toBe(1);
    }
  });

  it('counts with whitespace and with keys before and after the array', () => {
    const text = JSON.stringify(
      { id: 1, result: { nextCursor: 'c]', tools: awkward, ttlMs: 5 }, jsonrpc: '2.0' },
      null,
      2,
    );
    expect(countIn(text, 7)).toBe(awkward.length);
  });

  it('counts nothing outside result.tools', () => {
    expect(countIn(JSON.stringify({ id: 1, tools: [1, 2, 3] }), 5)).toBe(0);
    expect(countIn(JSON.stringify({ id: 1, result: { items: { tools: [1, 2] } } }), 5)).toBe(0);
    expect(countIn(JSON.stringify({ id: 1, error: { data: { tools: [1] } } }), 5)).toBe(0);
    expect(countIn(JSON.stringify({ method: 'x', params: { tools: [1, 2] } }), 5)).toBe(0);
  });

  it('starts over after reset, and over SSE framing', () => {
    const counter = new ToolCounter();
    counter.feed(Buffer.from(answer([1, 2, 3])));
    expect(counter.count).toBe(3);
    counter.reset();
    counter.feed(Buffer.from(`event: message\ndata: ${answer([{ name: 'one' }])}\n\n`));
    expect(counter.count).toBe(1);
  });
});

describe('ToolCounter on long strings', () => {
  it('reads escapes and quotes inside long strings, cut anywhere', () => {
    const tools = [
      { name: 'a', description: `${'x'.repeat(3000)}\\"],{[${'y'.repeat(40)}\\\\` },
      { name: 'b', description: `"${'z'.repeat(100)}"` },
      { name: 'c' },
    ];
    for (const size of [1, 2, 5, 100, 4096]) expect(countIn(answer(tools), size)).toBe(3);
  });
});
