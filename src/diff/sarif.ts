import { jsonPointer, type JsonPath, type JsonSource } from '../json-source.js';
import { canonicalize, sha256Hex } from '../listings/canonical.js';
import { HINTS } from './hints.js';
import { FINDING_CATALOGUE, type KindEntry } from './catalogue.js';
import { maxSeverity, type Severity } from './severity.js';
import { FINDING_KINDS } from './catalogue.js';
import type { Finding, FindingKind } from './types.js';

/*
 * Findings as SARIF 2.1.0, the format code-scanning dashboards read (GitHub's upload-sarif
 * among them). One rule per finding kind of the catalogue, with its summary and help, always
 * all of them in catalogue order, so that a rule keeps its index from run to run; `security-severity` carries the severity the way
 * GitHub ranks security alerts. Pure: where a finding is in a file is the caller's answer.
 */

export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/**
 * GitHub's bands: 9.0 and up critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low. `info`
 * has no band of its own and reads as low there; SARIF's `level` keeps it a note.
 */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: '9.5',
  high: '7.5',
  medium: '5.0',
  low: '2.5',
  info: '0.5',
};

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/** Where a finding stands in a file. */
export interface SarifPlace {
  /** The file, relative to where the tool ran (the repository root in CI), with `/`. */
  uri: string;
  /** The JSON path of the value in that file, as an RFC 6901 pointer. */
  pointer: string;
  line?: number;
  column?: number;
}

export interface SarifInput {
  findings: readonly Finding[];
  /** Where the finding is; null when no file holds it (`check` lists a live server). */
  locate(finding: Finding): SarifPlace | null;
  toolVersion: string;
}

/**
 * The place of `path` in a parsed file, or of the nearest value above it that the file
 * has (an added tool's hint is at its tool; a tool not in the file, at its listing).
 */
export function placeIn(source: JsonSource, uri: string, path: JsonPath): SarifPlace {
  for (let length = path.length; length >= 0; length--) {
    const at = path.slice(0, length);
    const position = source.position(at);
    if (position)
      return { uri, pointer: jsonPointer(at), line: position.line, column: position.column };
  }
  return { uri, pointer: '' };
}

function pascalCase(kind: string): string {
  return kind.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase());
}

/**
 * The path inside a tool (or prompt, resource...) that a finding is about:
 * `annotations/readOnlyHint` for a hint, the field's own path otherwise
 * (`inputSchema.properties.x` → inputSchema/properties/x, `arguments[0].description` →
 * arguments/0/description, `properties["a b"]` → properties/a b).
 */
export function fieldPath(finding: Pick<Finding, 'field'>): (string | number)[] {
  const field = finding.field;
  if (field === undefined) return [];
  if ((HINTS as readonly string[]).includes(field)) return ['annotations', field];
  const path: (string | number)[] = [];
  for (const match of field.matchAll(FIELD_STEP)) {
    const [, digits, name, index, quoted] = match;
    if (digits !== undefined) path.push(Number(digits));
    else if (name !== undefined) path.push(name);
    else if (index !== undefined) path.push(Number(index));
    else if (quoted !== undefined) path.push(JSON.parse(quoted) as string);
  }
  return path;
}

/** One step of a text-fields.ts path: `.0`, `.name`, `[0]`, `["any key"]`. */
const FIELD_STEP =
  /(?:^|\.)(?:(0|[1-9]\d*)(?=\.|\[|$)|([^.[\]]+))|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;

/**
 * The same finding in another run has the same fingerprint: it is what the finding says
 * (server, tool, kind, field, the values before and after), never where it was printed.
 */
export function findingFingerprint(finding: Finding): string {
  const value = (present: boolean, v: unknown) => (present ? canonicalize(v) : '');
  return sha256Hex(
    [
      finding.record.server ?? '',
      finding.tool ?? '',
      finding.kind,
      finding.field ?? '',
      value('before' in finding, finding.before),
      value('after' in finding, finding.after),
    ].join('\u0000'),
  );
}

/** A rule's severity: the kind's base, the highest of them for a kind with one per field. */
function ruleSeverity(entry: KindEntry): Severity {
  return typeof entry.base === 'string'
    ? entry.base
    : (maxSeverity(Object.values(entry.base)) as Severity);
}

function rule(kind: FindingKind) {
  const entry: KindEntry = FINDING_CATALOGUE[kind];
  const severity = ruleSeverity(entry);
  return {
    id: kind,
    name: pascalCase(kind),
    shortDescription: { text: entry.summary },
    fullDescription: { text: entry.summary },
    help: { text: entry.help, markdown: entry.help },
    defaultConfiguration: { level: LEVEL[severity] },
    properties: {
      'security-severity': SECURITY_SEVERITY[severity],
      tags: ['security', 'mcp'],
    },
  };
}

function result(finding: Finding, place: SarifPlace | null) {
  const server = finding.record.server;
  const tool = finding.tool;
  const logical = {
    name: tool ?? server ?? 'listing',
    fullyQualifiedName: [server, tool, ...fieldPath(finding)]
      .filter((part) => part !== null)
      .join('/'),
    kind: tool === null ? 'module' : 'member',
  };
  const location = place
    ? {
        physicalLocation: {
          artifactLocation: { uri: place.uri },
          ...(place.line === undefined
            ? {}
            : {
                region: {
                  startLine: place.line,
                  ...(place.column ? { startColumn: place.column } : {}),
                },
              }),
        },
        logicalLocations: [logical],
        properties: { jsonPointer: place.pointer },
      }
    : { logicalLocations: [logical] };
  return {
    ruleId: finding.kind,
    ruleIndex: FINDING_KINDS.indexOf(finding.kind),
    level: LEVEL[finding.severity],
    message: { text: `${server ? `${server}: ` : ''}${finding.explanation}` },
    locations: [location],
    partialFingerprints: { 'mcpDriftFinding/v1': findingFingerprint(finding) },
    properties: {
      severity: finding.severity,
      'security-severity': SECURITY_SEVERITY[finding.severity],
      ...(server ? { server } : {}),
      ...(tool ? { tool } : {}),
      ...(finding.field === undefined ? {} : { field: finding.field }),
    },
  };
}

export function sarifLog(input: SarifInput) {
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0' as const,
    runs: [
      {
        tool: {
          driver: {
            name: 'mcp-drift',
            version: input.toolVersion,
            semanticVersion: input.toolVersion,
            rules: FINDING_KINDS.map(rule),
          },
        },
        columnKind: 'utf16CodeUnits' as const,
        results: input.findings.map((finding) => result(finding, input.locate(finding))),
      },
    ],
  };
}
