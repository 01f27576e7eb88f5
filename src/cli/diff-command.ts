import { readFile } from 'node:fs/promises';
import { diffListings, formatFindingsText, type Finding } from '../diff/index.js';
import { DriftError } from '../errors.js';
import type { RawTool } from '../listings/canonical.js';
import { toolsFromDocument } from '../listings/validate.js';
import { checkTrust } from '../registry/server-spec.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { printJson } from './output.js';
import { enforceFailOn, parseSeverity } from './severity-flags.js';

/** `mcp-drift diff BEFORE.json AFTER.json`: offline, no database. */
export async function diffCommand(_ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('diff', argv, {
    trust: { type: 'string' },
    'fail-on': { type: 'string' },
    json: { type: 'boolean' },
  });
  const [beforePath, afterPath] = expectPositionals('diff', positionals, [
    'BEFORE.json',
    'AFTER.json',
  ]);
  const trust = values.trust === undefined ? undefined : checkTrust(values.trust);
  const failOn = parseSeverity('--fail-on', values['fail-on']);
  const before = await readListingFile(beforePath!);
  const after = await readListingFile(afterPath!);
  const result = diffListings(before, after, { trust });
  if (values.json)
    printJson({ severity: result.severity, findings: result.findings.map(findingJson) });
  else process.stdout.write(formatFindingsText(result));
  enforceFailOn(result.severity, failOn);
}

/** The design §7 contract, with the interpretation record (§5) so a finding reads on its own. */
export function findingJson(finding: Finding) {
  return {
    tool: finding.tool,
    kind: finding.kind,
    severity: finding.severity,
    ...('field' in finding ? { field: finding.field } : {}),
    ...('before' in finding ? { before: finding.before } : {}),
    ...('after' in finding ? { after: finding.after } : {}),
    explanation: finding.explanation,
    record: finding.record,
  };
}

export async function readListingFile(path: string): Promise<RawTool[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message;
    throw new DriftError('INVALID_INPUT', `cannot read ${path}: ${why}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new DriftError('INVALID_INPUT', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  return toolsFromDocument(doc, path);
}
