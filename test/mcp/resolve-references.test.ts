import { describe, expect, it } from 'vitest';
import { DriftError } from '../../src/errors.js';
import { referencedVariables, resolveReferences } from '../../src/mcp/index.js';

const where = (key: string) => `header ${key} of server "api"`;

describe('resolveReferences', () => {
  it('replaces every ${VAR} and leaves other dollars alone', () => {
    const resolved = resolveReferences(
      { Authorization: 'Bearer ${TOKEN}', 'X-Pair': '${A}:${B}', 'X-Price': '$5 ${ not a ref' },
      { TOKEN: 't0k', A: '1', B: '', UNUSED: 'x' },
      where,
    );
    expect(resolved).toEqual({
      Authorization: 'Bearer t0k',
      'X-Pair': '1:',
      'X-Price': '$5 ${ not a ref',
    });
  });

  it('does not resolve references inside substituted values', () => {
    expect(resolveReferences({ K: '${A}' }, { A: '${B}', B: 'no' }, where)).toEqual({ K: '${B}' });
  });

  it('names every missing variable and where it is used', () => {
    let error: unknown;
    try {
      resolveReferences(
        { Authorization: '${TOKEN}', Other: '${TENANT}-${TOKEN}' },
        { TENANT: 't' },
        where,
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DriftError);
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message:
        'environment variables not set: TOKEN (in header Authorization of server "api"), ' +
        'TOKEN (in header Other of server "api"); set them in the service environment or change the server configuration',
    });
  });

  it('takes a ${VAR:-default} default when VAR is unset or empty, as a shell does', () => {
    expect(
      resolveReferences(
        { A: '${UNSET:-x}', B: '${EMPTY:-y}', C: '${SET:-z}', D: 'https://${HOST:-a.test}/mcp' },
        { EMPTY: '', SET: 'set' },
        where,
      ),
    ).toEqual({ A: 'x', B: 'y', C: 'set', D: 'https://a.test/mcp' });
  });

  it('resolves nothing when there is nothing to resolve', () => {
    expect(resolveReferences(undefined, {}, where)).toEqual({});
  });

  it('lists the variables a value refers to', () => {
    expect(referencedVariables('${A}-${B_2}-$C-${3X}')).toEqual(['A', 'B_2']);
  });
});
