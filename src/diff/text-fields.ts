import type { RawTool } from '../listings/canonical.js';

/** One string a server supplies that a model or a person reads, and where it is. */
export interface ToolText {
  /** JSON path from the tool: `description`, `inputSchema.properties.path.description`. */
  path: string;
  text: string;
  /** A key of an object (a property name), or a value. */
  location: 'value' | 'key';
}

/** Keys of the tool that carry no text a model reads (icons are URLs, _meta is for hosts). */
const SKIPPED_TOOL_KEYS = new Set(['icons', '_meta', 'execution']);

/**
 * JSON Schema's own words: as keys they say nothing a server chose. Every other key is
 * server text (property names, $defs names, vendor keys) and is checked like a value.
 */
const SCHEMA_VOCABULARY = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$comment',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  'definitions',
  'type',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'required',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'description',
  'title',
  'default',
  'examples',
  'example',
  'enum',
  'const',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'readOnly',
  'writeOnly',
  'deprecated',
  'nullable',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function member(path: string, key: string): string {
  const step = IDENTIFIER.test(key) ? key : JSON.stringify(key);
  if (path === '') return step;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${step}]`;
}

function walk(value: unknown, path: string, inSchema: boolean, out: ToolText[]): void {
  if (typeof value === 'string') {
    out.push({ path, text: value, location: 'value' });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}[${index}]`, inSchema, out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const childPath = member(path, key);
      // Outside schemas, keys (annotations' hint names...) are the protocol's words.
      if (inSchema && !SCHEMA_VOCABULARY.has(key)) {
        out.push({ path: childPath, text: key, location: 'key' });
      }
      walk(child, childPath, inSchema, out);
    }
  }
}

/**
 * Every string of a tool a model or a person reads (docs/design.md §4, content checks): its name,
 * title, description, every string under annotations, and every string and non-vocabulary
 * key inside inputSchema and outputSchema at any depth ($defs included). Other top-level
 * keys are walked too, except icons, _meta and execution.
 */
export function toolTexts(tool: RawTool): ToolText[] {
  const out: ToolText[] = [];
  for (const [key, value] of Object.entries(tool)) {
    if (SKIPPED_TOOL_KEYS.has(key)) continue;
    const path = member('', key);
    walk(value, path, key === 'inputSchema' || key === 'outputSchema', out);
  }
  return out;
}
