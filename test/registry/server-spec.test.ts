import { describe, expect, it } from 'vitest';
import { maskValue } from '../../src/registry/redact.js';
import { checkName, parsePairs } from '../../src/registry/server-spec.js';

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
