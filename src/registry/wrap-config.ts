import { isObject } from '../is-object.js';

/*
 * `server import --wrap` (docs/gateway.md, Putting a host behind it): a host config with
 * each imported server routed through `mcp-drift gateway NAME`. Pure: a parsed config in,
 * the wrapped config out; every other key of the file is kept as it was.
 */

/** The entry that runs the gateway of registered server `name`, as hosts' configs write stdio. */
export function gatewayEntry(name: string): Record<string, unknown> {
  return { command: 'mcp-drift', args: ['gateway', name] };
}

/**
 * `doc` with each entry named in `registered` (host entry name → registered name) replaced
 * by its gateway entry, in every place hosts keep servers (`mcpServers`, `servers`,
 * `mcp.servers`, Claude Code's `projects.*.mcpServers`). Returns a copy.
 */
export function wrapHostConfig(doc: unknown, registered: ReadonlyMap<string, string>): unknown {
  const copy = structuredClone(doc);
  if (!isObject(copy)) return copy;
  const wrap = (list: unknown) => {
    if (!isObject(list)) return;
    for (const [entry, name] of registered) {
      const current = list[entry];
      if (!isObject(current)) continue;
      // VS Code's entries say their type; a gateway entry is a stdio one.
      list[entry] =
        'type' in current ? { type: 'stdio', ...gatewayEntry(name) } : gatewayEntry(name);
    }
  };
  wrap(copy['mcpServers']);
  wrap(copy['servers']);
  if (isObject(copy['mcp'])) wrap(copy['mcp']['servers']);
  if (isObject(copy['projects'])) {
    for (const project of Object.values(copy['projects'])) {
      if (isObject(project)) wrap(project['mcpServers']);
    }
  }
  return copy;
}
