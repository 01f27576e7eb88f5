import { findingJson } from '../diff/finding-json.js';
import { formatFindingsText } from '../diff/index.js';
import { diffListingFiles } from '../listings/listing-file.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { enforceFailOn, severityFlag, trustFlag } from './flags.js';
import { printJson } from './output.js';

/** `mcp-drift diff BEFORE.json AFTER.json`: offline, no configuration, no database. */
export async function diffCommand(run: CommandRun): Promise<void> {
  const [beforePath, afterPath] = run.args as [string, string];
  const opts = run.opts as { trust?: string; failOn?: string; json?: boolean };
  const problems = new Problems();
  const trust = trustFlag(problems, opts.trust);
  const failOn = severityFlag(problems, '--fail-on', opts.failOn);
  problems.throwIfAny();
  const result = await diffListingFiles(beforePath, afterPath, { trust });
  if (opts.json) {
    printJson({ severity: result.severity, findings: result.findings.map(findingJson) });
  } else {
    process.stdout.write(formatFindingsText(result));
  }
  enforceFailOn(result.severity, failOn);
}
