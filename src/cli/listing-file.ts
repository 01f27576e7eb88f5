import { readInputFile } from '../input-file.js';
import { diffListings, type DiffResult } from '../diff/index.js';
import type { TrustLevel } from '../diff/types.js';
import { DriftError } from '../errors.js';
import { JsonSyntaxError, parseJsonSource, type JsonSource } from '../json-source.js';
import type { Extras, RawTool } from '../listings/canonical.js';
import { presentationFromDocument, type Presentation } from '../listings/presentation.js';

/**
 * A listing saved as a file: a whole presentation (`{"tools":[…],"prompts":[…],
 * "resources":[…],"resourceTemplates":[…],"instructions":"…"}`), a tools/list result
 * (`{"tools":[…]}`) or an array of tools. Surfaces left out are absent.
 */
export async function readListingFile(path: string): Promise<Presentation> {
  const text = await readInputFile(path);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new DriftError('INVALID_INPUT', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  return presentationFromDocument(doc, path);
}

/** A listing file with where each of its values is: for findings located in it (SARIF). */
export interface ListingSource {
  path: string;
  /** In the file's own order. */
  tools: RawTool[];
  /** The other surfaces, in the file's own order; all absent for an array of tools. */
  extras: Extras;
  source: JsonSource;
  /** Where the tools array is: `["tools"]` in a tools/list result, `[]` for a bare array. */
  toolsPath: string[];
}

/**
 * Slower than readListingFile (a parser that keeps positions, where JSON.parse keeps
 * none), so only the commands that print locations use it.
 */
export async function readListingSource(path: string): Promise<ListingSource> {
  const text = await readInputFile(path);
  let source: JsonSource;
  try {
    // A tool's fields, and a few levels into its schemas, are what findings name.
    source = parseJsonSource(text, { positionDepth: 8 });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new DriftError('INVALID_INPUT', `${path} is not valid JSON: ${error.message}`);
  }
  const { tools, ...extras } = presentationFromDocument(source.value, path);
  return { path, tools, extras, source, toolsPath: Array.isArray(source.value) ? [] : ['tools'] };
}

/** The offline diff of two listing files: no database, no server. */
export async function diffListingFiles(
  beforePath: string,
  afterPath: string,
  options: { trust?: TrustLevel },
): Promise<DiffResult> {
  const before = await readListingFile(beforePath);
  const after = await readListingFile(afterPath);
  return diffListings(before, after, { trust: options.trust });
}

/** The same diff, with both files' positions, for findings located in them. */
export async function diffListingSources(
  beforePath: string,
  afterPath: string,
  options: { trust?: TrustLevel },
): Promise<{ result: DiffResult; before: ListingSource; after: ListingSource }> {
  const before = await readListingSource(beforePath);
  const after = await readListingSource(afterPath);
  return {
    result: diffListings(
      { tools: before.tools, ...before.extras },
      { tools: after.tools, ...after.extras },
      { trust: options.trust },
    ),
    before,
    after,
  };
}
