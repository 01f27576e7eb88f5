import path from 'node:path';
import { fieldPath, placeIn, sarifLog } from '../diff/sarif.js';
import type { Finding } from '../diff/types.js';
import type { LockfileRead } from './lockfile.js';
import type { VerifyReport } from './verify-servers.js';

/** A file as SARIF names it: relative to where the command ran (the repository root in CI). */
export function sarifUri(file: string): string {
  const relative = path.relative(process.cwd(), file);
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  return shown.split(path.sep).join('/');
}

/**
 * verify's findings located in the lockfile: a tool's finding at that tool's block (its
 * hint, field or the tool itself), a tool the lock does not have at the server's tools.
 */
export function verifySarifLog(report: VerifyReport, lock: LockfileRead, toolVersion: string) {
  const uri = sarifUri(lock.path);
  const locked = new Map(lock.servers.map((server) => [server.name, server]));
  const locate = (finding: Finding) => {
    const server = finding.record.server ?? '';
    const base = ['servers', server];
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
  return sarifLog({ findings: report.findings, locate, toolVersion });
}
