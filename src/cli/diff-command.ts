import { findingJson } from '../diff/finding-json.js';
import { formatFindingsText } from '../diff/index.js';
import { diffListingFiles, diffListingSources } from './listing-file.js';
import { listingSarifLog } from './listing-sarif.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { enforceFailOn, formatFlag, severityFlag, trustFlag } from './flags.js';
import { fileUri, printJson, printText } from './output.js';
import { packageVersion } from './version.js';

/** `mcp-drift diff BEFORE.json AFTER.json`: offline, no configuration, no database. */
export async function diffCommand(run: CommandRun): Promise<void> {
  const [beforePath, afterPath] = run.args as [string, string];
  const opts = run.opts as { trust?: string; failOn?: string; format?: string; json?: boolean };
  const problems = new Problems();
  const trust = trustFlag(problems, opts.trust);
  const failOn = severityFlag(problems, '--fail-on', opts.failOn);
  const format = formatFlag(problems, opts.format, opts.json);
  problems.throwIfAny();
  if (format === 'sarif') {
    const { result, before, after } = await diffListingSources(beforePath, afterPath, { trust });
    printJson(
      listingSarifLog(result, { before, after }, { uri: fileUri, toolVersion: packageVersion() }),
    );
    return enforceFailOn(result.severity, failOn);
  }
  const result = await diffListingFiles(beforePath, afterPath, { trust });
  if (format === 'json') {
    printJson({ severity: result.severity, findings: result.findings.map(findingJson) });
  } else {
    printText(formatFindingsText(result));
  }
  enforceFailOn(result.severity, failOn);
}
