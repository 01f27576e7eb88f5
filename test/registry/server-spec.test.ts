import { describe, expect, it } from 'vitest';
import { maskValue } from '../../src/registry/redact.js';
import { checkName, checkUrl, parsePairs } from '../../src/registry/server-spec.js';

describe('server names', () => {
  it.each(['fs', 'my-server_2', 'a.b', 'X'])('accepts %s', (name) => {
    expect(checkName(name)).toBe(name);
  });
  it.each(['', 'has space', '-flag', '.hidden', 'a/b', 'ä', 'x'.repeat(65)])(
    'rejects %j',
    (name) => {
      expect(() => checkName(name)).toThrow(/invalid server name/);
    },
  );
});

describe('--header and --env pairs', () => {
  it('splits at the first = and keeps the rest of the value', () => {
    expect(parsePairs(['Authorization=Bearer a=b', 'X-Y=${TOKEN}'], '--header')).toEqual({
      Authorization: 'Bearer a=b',
      'X-Y': '${TOKEN}',
    });
  });
  it('lets a later pair replace an earlier one', () => {
    expect(parsePairs(['A=1', 'A=2'], '--env')).toEqual({ A: '2' });
  });
  it.each([
    [['novalue'], '--env', /invalid --env "novalue"/],
    [['1BAD=x'], '--env', /invalid --env "1BAD=…"/],
    [['Bad Header=x'], '--header', /invalid --header "Bad Header=…"/],
    [['A=${unterminated'], '--env', /"\$\{unterminated" is not a \$\{VAR\} reference/],
    [['A=${has-dash}'], '--env', /"\$\{has-dash\}" is not a \$\{VAR\} reference/],
    [['A=line\nbreak'], '--header', /line break/],
  ] as const)('rejects %j for %s', (pairs, flag, message) => {
    expect(() => parsePairs([...pairs], flag)).toThrow(message);
  });
});

describe('masking header and env values', () => {
  it.each([
    ['${TOKEN}', '${TOKEN}'],
    ['Bearer ${TOKEN}', 'Bearer ${TOKEN}'],
    ['sk-live-123', '****'],
    ['Bearer sk-live-123', 'Bearer ****'],
    ['prefix${A}suffix', '****${A}****'],
    ['$HOME', '****'],
    ['${REGION:-eu-west}', '${REGION:-****}'],
    ['${REGION:-}', '${REGION:-}'],
    ['', ''],
  ])('%j shows as %j', (value, shown) => {
    expect(maskValue(value)).toBe(shown);
  });
});

describe('--url', () => {
  it('refuses credentials in the URL, names the fix, and never repeats the password', () => {
    const attempt = () => checkUrl('http://monitor:hunter2-secret@127.0.0.1:3001/mcp');
    expect(attempt).toThrow(
      "invalid --url: it carries credentials (user:password@), which would be stored in the registry; register --url http://127.0.0.1:3001/mcp and pass them as a header instead: --header 'Authorization=Basic ${BASIC_AUTH}', with BASIC_AUTH set to the base64 of user:password in the environment of serve and check",
    );
    expect(() => checkUrl('http://only-user@127.0.0.1/mcp')).toThrow(/carries credentials/);
    try {
      attempt();
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });
  it('accepts http and https URLs without credentials', () => {
    expect(checkUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
  });
});
