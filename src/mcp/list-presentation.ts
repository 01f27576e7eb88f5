import { ProtocolError, type Client, type ServerCapabilities } from '@modelcontextprotocol/client';
import { DriftError, isDriftError } from '../errors.js';
import type { Extras, RawItem } from '../listings/canonical.js';
import { validateItems } from '../listings/presentation.js';
import type { ItemSurface } from '../vocabulary/surfaces.js';
import {
  listAllPages,
  listAllTools,
  type ListAllToolsOptions,
  type Paging,
  type ToolListing,
} from './list-tools.js';

/** A server's whole presentation (docs/design.md §2): the tool listing and the other surfaces. */
export type PresentationListing = ToolListing & Extras;

const PAGING: Readonly<Record<ItemSurface, Paging>> = {
  prompts: { method: 'prompts/list', key: 'prompts', noun: 'prompts' },
  resources: { method: 'resources/list', key: 'resources', noun: 'resources' },
  resourceTemplates: {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    noun: 'resource templates',
  },
};

/** JSON-RPC "method not found". */
const METHOD_NOT_FOUND = -32601;

/**
 * Tools, then each surface the server advertises, each complete (every page, the same caps
 * and failures as tools); a surface whose capability is not advertised is absent (null),
 * never empty. `instructions` come from the handshake (initialize or server/discover).
 *
 * Throws DriftError as listAllTools does: one incomplete surface fails the whole listing.
 */
export async function listPresentation(
  client: Client,
  capabilities: ServerCapabilities | null,
  instructions: string | null,
  options: ListAllToolsOptions = {},
): Promise<PresentationListing> {
  const tools = await listAllTools(client, options);
  const listing: PresentationListing = {
    ...tools,
    prompts: null,
    resources: null,
    resourceTemplates: null,
    instructions: instructions === '' ? null : instructions,
  };
  if (capabilities?.prompts !== undefined) {
    listing.prompts = await listSurface(client, 'prompts', options);
  }
  if (capabilities?.resources !== undefined) {
    listing.resources = await listSurface(client, 'resources', options);
    // The templates method belongs to the resources capability, yet servers that have no
    // templates often leave it unimplemented: that is absence, not a broken listing.
    listing.resourceTemplates = await listSurface(client, 'resourceTemplates', options).catch(
      (error: unknown) => {
        if (isMethodNotFound(error)) return null;
        throw error;
      },
    );
  }
  return listing;
}

async function listSurface(
  client: Client,
  surface: ItemSurface,
  options: ListAllToolsOptions,
): Promise<RawItem[]> {
  const target = options.failure?.target ?? 'the server';
  const { items } = await listAllPages(client, PAGING[surface], options);
  try {
    return validateItems(items, surface, `the ${surface} list`);
  } catch (error) {
    if (!isDriftError(error)) throw error;
    throw new DriftError('REMOTE_PROTOCOL', `${target} sent an invalid listing: ${error.message}`, {
      cause: error,
    });
  }
}

function isMethodNotFound(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 6; depth += 1) {
    if (current instanceof ProtocolError && current.code === METHOD_NOT_FOUND) return true;
    current = current.cause;
  }
  return false;
}
