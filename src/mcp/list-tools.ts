import { Buffer } from 'node:buffer';
import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { DriftError, isDriftError } from '../errors.js';
import { isObject } from '../is-object.js';
import type { RawTool } from '../listings/canonical.js';
import { validateTools } from '../listings/validate.js';
import { toDriftError, type FailureContext } from './describe-failure.js';
import { TOOL_CAP_ERROR_CODE, toolCapReason } from './tool-counter.js';

/** Bounds on one listing. Hitting any of them fails the listing; it is never truncated. */
export interface ListingCaps {
  maxPages: number;
  maxTools: number;
  /** Total size of the tools as JSON (re-serialized, UTF-8), over all pages. */
  maxBytes: number;
}

export const DEFAULT_LISTING_CAPS: Readonly<ListingCaps> = {
  maxPages: 100,
  maxTools: 10_000,
  maxBytes: 16 * 1024 * 1024,
};

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A complete tools/list listing, every key of every tool as the server sent it. */
export interface ToolListing {
  /** In the server's order; validated: objects with unique non-empty names. */
  tools: RawTool[];
  pages: number;
  bytes: number;
  /** 2026-07-28 cache hints from the first page (the one a host's cache entry is keyed on). */
  ttlMs: number | null;
  cacheScope: string | null;
}

export interface ListAllToolsOptions {
  caps?: Partial<ListingCaps>;
  /** Per page request. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Where the listing comes from, for error messages. */
  failure?: Omit<FailureContext, 'step' | 'timeoutMs'>;
}

/**
 * The SDK validates spec results with schemas that drop keys the spec does not define
 * (`annotations.vendorHint`, future fields): exactly the keys whose drift matters. This
 * schema accepts the decoded result as it is; the shape is checked below instead.
 */
const RAW_RESULT: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'mcp-drift', validate: (value) => ({ value }) },
};

/**
 * Requests tools/list page by page, following `nextCursor` to the end. The raw request
 * (rather than `client.listTools()`) keeps unknown keys and bypasses the SDK's response
 * cache, whose point is to avoid asking the server, which is the opposite of ours.
 *
 * Throws DriftError: REMOTE_PROTOCOL for a malformed page, a repeated cursor, a cap, or an
 * invalid tool list; REMOTE_TIMEOUT / REMOTE_UNREACHABLE as the request failed.
 */
export async function listAllTools(
  client: Client,
  options: ListAllToolsOptions = {},
): Promise<ToolListing> {
  const target = options.failure?.target ?? 'the server';
  const { items, ...pages } = await listAllPages(client, TOOLS_PAGING, options);
  return { ...pages, tools: validateListing(items, target) };
}

/** What differs between the list methods: the method, its result's array key, the noun. */
export interface Paging {
  method: 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';
  key: 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
  /** Plural, for messages ("tools", "prompts", "resource templates"). */
  noun: string;
}

const TOOLS_PAGING: Paging = { method: 'tools/list', key: 'tools', noun: 'tools' };

/**
 * Every page of one list method, with the same cursor loop, caps and failures as tools
 * (docs/design.md §2): a surface is complete or the listing fails.
 */
export async function listAllPages(
  client: Client,
  paging: Paging,
  options: ListAllToolsOptions = {},
): Promise<{
  items: unknown[];
  pages: number;
  bytes: number;
  ttlMs: number | null;
  cacheScope: string | null;
}> {
  const caps = { ...DEFAULT_LISTING_CAPS, ...options.caps };
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const target = options.failure?.target ?? 'the server';
  const fail = (message: string) => new DriftError('REMOTE_PROTOCOL', `${target}: ${message}`);
  const { method, key, noun } = paging;
  const what = key === 'tools' ? 'the listing' : `the ${method} listing`;

  const items: unknown[] = [];
  const cursorsSeen = new Set<string>();
  let cursor: string | undefined;
  let bytes = 0;
  let ttlMs: number | null = null;
  let cacheScope: string | null = null;

  for (let page = 1; ; page += 1) {
    if (page > caps.maxPages) {
      throw fail(
        `${what} has more than ${caps.maxPages} pages (page cap maxPages=${caps.maxPages})`,
      );
    }
    let result: unknown;
    try {
      result = await client.request(
        { method, params: cursor === undefined ? {} : { cursor } },
        RAW_RESULT,
        { timeout: timeoutMs, signal: options.signal },
      );
    } catch (error) {
      if (isDriftError(error)) throw error;
      // The transport counted the page's tools before parsing it (tool-counter.ts).
      if (isObject(error) && error['code'] === TOOL_CAP_ERROR_CODE) {
        throw fail(toolCapReason(caps.maxTools));
      }
      // A server that exits on a list request: its exit status and stderr say why.
      await options.failure?.stdio?.settleExit(2_000);
      throw toDriftError(error, {
        ...options.failure,
        target,
        step: `listing ${noun} (page ${page}) from`,
        timeoutMs,
      });
    }
    if (!isObject(result) || !Array.isArray(result[key])) {
      throw fail(`page ${page} of ${method} has no "${key}" array`);
    }
    if (page === 1) {
      ttlMs = cacheTtl(result['ttlMs']);
      cacheScope = typeof result['cacheScope'] === 'string' ? result['cacheScope'] : null;
    }
    for (const item of result[key] as unknown[]) {
      items.push(item);
      bytes += Buffer.byteLength(JSON.stringify(item) ?? 'null', 'utf8');
    }
    if (items.length > caps.maxTools) {
      throw fail(
        `the listing has more than ${caps.maxTools} ${noun} (${items.length} by page ${page}; tool cap maxTools=${caps.maxTools})`,
      );
    }
    if (bytes > caps.maxBytes) {
      throw fail(
        `${what} is larger than ${caps.maxBytes} bytes (${bytes} bytes by page ${page}; size cap maxBytes=${caps.maxBytes})`,
      );
    }

    const next = result['nextCursor'];
    // An empty cursor is read as "no more pages": some servers send "" for the last page.
    if (next === undefined || next === null || next === '') {
      return { items, pages: page, bytes, ttlMs, cacheScope };
    }
    if (typeof next !== 'string') {
      throw fail(`page ${page} of ${method} has a nextCursor that is not a string`);
    }
    if (cursorsSeen.has(next)) {
      throw fail(
        `page ${page} of ${method} repeats an earlier cursor ${JSON.stringify(next.slice(0, 80))}; the listing would never end`,
      );
    }
    cursorsSeen.add(next);
    cursor = next;
  }
}

/** A server that sends an unusable tool list is broken: a protocol error, not bad user input. */
function validateListing(tools: unknown[], target: string): RawTool[] {
  try {
    return validateTools(tools, 'the tools list');
  } catch (error) {
    if (!isDriftError(error)) throw error;
    throw new DriftError('REMOTE_PROTOCOL', `${target} sent an invalid listing: ${error.message}`, {
      cause: error,
    });
  }
}

function cacheTtl(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
