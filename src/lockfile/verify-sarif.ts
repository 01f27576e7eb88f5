import { fieldPath, placeIn, sarifLog } from '../diff/sarif.js';
import { surfacePath } from '../diff/surfaces.js';
import type { Finding } from '../diff/types.js';
import type { LockfileRead } from './lockfile.js';
import type { VerifyReport } from './verify-servers.js';

/**
 * verify's findings located in the lockfile: a tool's finding at that tool's block (its
 * hint, field or the tool itself), a tool the lock does not have at the server's tools; a
 * prompt's, resource's or template's at its item, the instructions' at `instructions`.
 */
export function verifySarifLog(
  report: VerifyReport,
  lock: LockfileRead,
  options: { uri(path: string): string; toolVersion: string },
) {
  const uri = options.uri(lock.path);
  const locked = new Map(lock.servers.map((server) => [server.name, server]));
  const locate = (finding: Finding) => {
    const server = finding.record.server ?? '';
    const base = ['servers', server];
    const entry = locked.get(server);
    const inSurface = entry ? surfacePath(finding, entry.extras) : null;
    if (inSurface !== null) {
      return placeIn(lock.source, uri, [...base, ...inSurface]);
    }
    const name = finding.kind === 'tool_renamed' ? finding.record.renamedFrom : finding.tool;
    const index = locked.get(server)?.tools.findIndex((tool) => tool.name === name) ?? -1;
    const at =
      index >= 0
        ? [...base, 'tools', index, ...fieldPath(finding)]
        : finding.tool === null
          ? base
          : [...base, 'tools'];
    return placeIn(lock.source, uri, at);
  };
  return sarifLog({ findings: report.findings, locate, toolVersion: options.toolVersion });
}
