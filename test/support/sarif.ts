import { readFileSync } from 'node:fs';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';

// CommonJS modules: under NodeNext their default import is module.exports, and the class
// (and the plugin) is its `default` property as well.
const Ajv = ajvDraft04.default;
const addFormats = ajvFormats.default;

/*
 * The official SARIF 2.1.0 JSON schema (test/fixtures/sarif/, see its README: OASIS's
 * errata01 version, a JSON Schema draft-04 document), compiled once with ajv.
 */
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
) as object;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** What the schema finds wrong with the document; empty when it is valid SARIF 2.1.0. */
export function sarifSchemaErrors(document: unknown): string[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? ''}`,
  );
}
