import { fieldPath, placeIn, sarifLog } from '../diff/sarif.js';
import { surfacePath } from '../diff/surfaces.js';
import type { DiffResult, Finding } from '../diff/types.js';
import type { ListingSource } from './listing-file.js';

/**
 * `diff --format sarif`: each finding at its tool in the AFTER file (the listing under
 * review), a removed tool in the BEFORE file, a finding about the whole listing at the
 * AFTER file's start; a prompt's, resource's or template's finding at its item (in BEFORE
 * when only that file has it), an instructions finding at `instructions`. `uri` names a
 * file as the SARIF consumer should see it.
 */
export function listingSarifLog(
  result: DiffResult,
  files: { before: ListingSource; after: ListingSource },
  options: { uri(path: string): string; toolVersion: string },
) {
  const indexes = (file: ListingSource) =>
    new Map(file.tools.map((tool, index) => [tool.name, index]));
  const inAfter = indexes(files.after);
  const inBefore = indexes(files.before);
  const locate = (finding: Finding) => {
    const inAfterSurface = surfacePath(finding, files.after.extras);
    if (inAfterSurface !== null) {
      const inBeforeSurface = surfacePath(finding, files.before.extras);
      const [file, at] =
        inAfterSurface.length === 1 && inBeforeSurface !== null && inBeforeSurface.length > 1
          ? [files.before, inBeforeSurface]
          : [files.after, inAfterSurface];
      return placeIn(file.source, options.uri(file.path), at);
    }
    const afterIndex = finding.tool === null ? undefined : inAfter.get(finding.tool);
    const beforeIndex = finding.tool === null ? undefined : inBefore.get(finding.tool);
    const [file, index] =
      afterIndex !== undefined || beforeIndex === undefined
        ? [files.after, afterIndex]
        : [files.before, beforeIndex];
    const at = index === undefined ? [] : [...file.toolsPath, index, ...fieldPath(finding)];
    return placeIn(file.source, options.uri(file.path), at);
  };
  return sarifLog({ findings: result.findings, locate, toolVersion: options.toolVersion });
}
