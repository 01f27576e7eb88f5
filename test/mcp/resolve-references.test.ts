import { describe, expect, it } from 'vitest';
import { DriftError } from '../../src/errors.js';
import {
  missingReferences,
  referencedVariables,
  resolveReferences,
  unresolvableReferences,
} from '../../src/mcp/index.js';

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

describe('missingReferences', () => {
  it('names each unresolvable variable once per entry, in order', () => {
    expect(
      missingReferences(
        { Authorization: 'Bearer ${TOKEN}', Pair: '${B}:${A}:${B}', Set: '${SET}', Empty: '${E}' },
        { SET: 'x', E: '' },
      ),
    ).toEqual([
      { key: 'Authorization', variable: 'TOKEN' },
      { key: 'Pair', variable: 'B' },
      { key: 'Pair', variable: 'A' },
    ]);
  });

  it('counts a reference with a default as resolvable, set or not', () => {
    expect(missingReferences({ A: '${UNSET:-x}', B: '${EMPTY:-}' }, { EMPTY: '' })).toEqual([]);
  });

  it('finds nothing in no values', () => {
    expect(missingReferences(undefined, {})).toEqual([]);
  });
});

describe('unresolvableReferences', () => {
  it("reads an http server's headers and says what connecting would", () => {
    const spec = {
      name: 'api',
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: '${TOKEN}', Other: '${TOKEN}-${TENANT}' },
      env: { IGNORED: '${NOT_READ}' },
    } as const;
    const unresolvable = unresolvableReferences(spec, { TENANT: 't' });
    expect(unresolvable).toEqual({
      variables: ['TOKEN'],
      problem:
        'environment variables not set: TOKEN (in header Authorization of server "api"), ' +
        'TOKEN (in header Other of server "api"); set them in the service environment or change the server configuration',
    });
    expect(() => resolveReferences(spec.headers, { TENANT: 't' }, where)).toThrow(
      unresolvable!.problem,
    );
  });

  it("reads a stdio server's environment", () => {
    const spec = { name: 'fs', transport: 'stdio', command: 'fs', env: { KEY: '${K}' } } as const;
    expect(unresolvableReferences(spec, {})?.problem).toContain('K (in env KEY of server "fs")');
    expect(unresolvableReferences(spec, { K: 'v' })).toBeNull();
  });
});
