import { describe, expect, it } from 'vitest';
import { redactFromLogs, scrubSecrets, urlPasswords } from '../../src/log-lines.js';

describe('scrubbing secrets from log lines', () => {
  it('masks the password of any URL in a line', () => {
    expect(
      scrubSecrets(
        '{"msg":"cannot reach postgres://app:hunter2@db:5432/x or smtps://u:p%40ss@mail"}',
      ),
    ).toBe('{"msg":"cannot reach postgres://app:****@db:5432/x or smtps://u:****@mail"}');
    expect(scrubSecrets('{"url":"http://127.0.0.1:8464/metrics"}')).toBe(
      '{"url":"http://127.0.0.1:8464/metrics"}',
    );
  });

  it('masks registered values wherever they appear, also as escaped in JSON', () => {
    redactFromLogs(['Bearer tok-en"with\\quote', 'plain-value-123', undefined]);
    expect(scrubSecrets('{"reason":"401: Bearer tok-en\\"with\\\\quote rejected"}')).toBe(
      '{"reason":"401: **** rejected"}',
    );
    expect(scrubSecrets('x plain-value-123 y')).toBe('x **** y');
  });

  it('leaves short values and auth scheme words alone, so lines stay readable', () => {
    redactFromLogs(['true', 'Basic']);
    expect(scrubSecrets('{"held":true,"scheme":"Basic"}')).toBe('{"held":true,"scheme":"Basic"}');
  });

  it('finds both the written and the decoded form of a URL password', () => {
    expect(urlPasswords('postgres://u:p%40ss@h/db')).toEqual(['p%40ss', 'p@ss']);
    expect(urlPasswords('postgres://u@h/db')).toEqual([]);
    expect(urlPasswords(undefined)).toEqual([]);
  });
});
