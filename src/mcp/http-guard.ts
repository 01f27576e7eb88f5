/*
 * What the HTTP transports read, bounded before the SDK sees it. The SDK reads a JSON
 * answer whole (`response.json()`, and `response.text()` for an error), and an SSE event
 * whole, before any cap of ours could apply: a 50 MB page cost 660 MB of memory, and an
 * endless one never ended. Given to the SDK as its `fetch`, this wraps every response body:
 * a declared Content-Length over the cap fails at once, a JSON body is counted as it
 * streams in, and on an SSE stream each event is counted on its own (a stream may last for
 * days; it is one event that must fit the cap, as one line must over stdio).
 *
 * It also takes change notifications off SSE streams before the SDK parses and validates
 * them (two schema checks and a promise each): a server sending 20,000 a second stalled
 * the whole service. Each is handed to `onToolsListChanged` at the cost of finding its
 * end and looking at its few bytes, and dropped. (A dropped event's `id` is not
 * remembered: resuming after a drop may replay change notifications, which cost as little.)
 */

import { ToolCounter, toolCapAnswer, toolCapReason } from './tool-counter.js';

export interface HttpGuardOptions {
  /** One JSON body, or one SSE event, larger than this drops the connection. */
  maxMessageBytes: number;
  /**
   * A tools/list answer (one JSON body, or one SSE event) with more tools than this drops
   * the connection, counted in the raw bytes before anything is parsed.
   */
  maxTools?: number;
  /** Each `notifications/tools/list_changed` seen on an SSE stream, which is then dropped. */
  onToolsListChanged?: () => void;
  /** Called once, with the reason, when a response broke the cap. */
  onFatal?: (reason: string) => void;
}

/** A response body broke the size cap; the guard's `fatal` says how. */
export class MessageTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MessageTooLargeError';
  }
}

const LF = 0x0a;
const CR = 0x0d;
/** Events up to this size are held until they end, to see whether they are a notification. */
const NOTIFICATION_MAX_BYTES = 512;
const LIST_CHANGED = 'notifications/tools/list_changed';
/** Statuses whose responses cannot carry a body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export class HttpGuard {
  /** Why the connection was dropped, once a response broke the cap. */
  fatal: string | null = null;
  readonly fetch: typeof fetch;

  constructor(private readonly options: HttpGuardOptions) {
    this.fetch = (input, init) => this.guardedFetch(input, init);
  }

  private async guardedFetch(
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ): Promise<Response> {
    const response = await fetch(input, init);
    const body = response.body;
    if (!body || NULL_BODY.has(response.status)) return response;
    const limit = this.options.maxMessageBytes;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      void body.cancel().catch(() => {});
      throw this.fail(
        `the server announced a message of ${declared} bytes (Content-Length), more than the listing size cap allows (${limit} bytes)`,
      );
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const listing = listingRequestId(init?.body);
    const guarded = filtered(
      body,
      type === 'text/event-stream' ? this.eventStream() : this.counted(listing),
    );
    return new Response(guarded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  private fail(reason: string): MessageTooLargeError {
    if (this.fatal === null) {
      this.fatal = reason;
      this.options.onFatal?.(reason);
    }
    return new MessageTooLargeError(reason);
  }

  private tooLarge(what: string): MessageTooLargeError {
    return this.fail(
      `the server sent ${what} larger than ${this.options.maxMessageBytes} bytes, more than the listing size cap allows`,
    );
  }

  /** Over SSE, where part of the event has passed on already, the connection is dropped. */
  private tooManyTools(): MessageTooLargeError {
    return this.fail(toolCapReason(this.options.maxTools ?? 0));
  }

  /**
   * A whole body, counted as it streams in. The answer to a tools/list request is held
   * (the SDK reads a JSON body whole before parsing it anyway) while its tools are counted:
   * past the tool cap, the rest is not read and the SDK is handed a JSON-RPC error for
   * that request instead, so the listing fails and the session stays up, as for a cap
   * that list-tools.ts finds.
   */
  private counted(listingId: string | number | undefined): ChunkFilter {
    let bytes = 0;
    const maxTools = this.options.maxTools;
    if (listingId === undefined || maxTools === undefined) {
      return {
        transform: (chunk, enqueue) => {
          bytes += chunk.byteLength;
          if (bytes > this.options.maxMessageBytes) throw this.tooLarge('a message');
          enqueue(chunk);
        },
      };
    }
    const tools = new ToolCounter();
    let held: Uint8Array[] = [];
    return {
      transform: (chunk, _enqueue, end) => {
        bytes += chunk.byteLength;
        if (bytes > this.options.maxMessageBytes) throw this.tooLarge('a message');
        if (tools.feed(chunk) > maxTools) {
          held = [];
          end(Buffer.from(JSON.stringify(toolCapAnswer(listingId, maxTools))));
          return;
        }
        held.push(chunk);
      },
      flush: (enqueue) => {
        for (const piece of held) enqueue(piece);
        held = [];
      },
    };
  }

  /**
   * An SSE stream, event by event: an event ends at a blank line (LF, CR or CRLF line
   * endings). Small events are held until they end; one that is a change notification is
   * reported and dropped, any other passes on unchanged, in order.
   */
  private eventStream(): ChunkFilter {
    const limit = this.options.maxMessageBytes;
    let held: Uint8Array[] = [];
    let heldBytes = 0;
    /** The current event grew too large to be a notification: its bytes pass at once. */
    let passing = false;
    let eventBytes = 0;
    let lineEmpty = true;
    let afterCR = false;
    const tools = new ToolCounter();
    const maxTools = this.options.maxTools ?? Infinity;

    const endEvent = (enqueue: Enqueue) => {
      tools.reset();
      if (!passing && this.isListChanged(held, heldBytes)) {
        this.options.onToolsListChanged?.();
      } else {
        for (const piece of held) enqueue(piece);
      }
      held = [];
      heldBytes = 0;
      passing = false;
      eventBytes = 0;
    };
    const keep = (piece: Uint8Array, enqueue: Enqueue) => {
      if (piece.byteLength === 0) return;
      if (tools.feed(piece) > maxTools) throw this.tooManyTools();
      if (passing) {
        enqueue(piece);
        return;
      }
      held.push(piece);
      heldBytes += piece.byteLength;
      if (heldBytes > NOTIFICATION_MAX_BYTES) {
        passing = true;
        for (const part of held) enqueue(part);
        held = [];
        heldBytes = 0;
      }
    };

    return {
      transform: (chunk, enqueue) => {
        let start = 0;
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i]!;
          if (afterCR && byte === LF) {
            afterCR = false; // the second half of a CRLF
            continue;
          }
          afterCR = byte === CR;
          if (byte === LF || byte === CR) {
            if (lineEmpty) {
              keep(chunk.subarray(start, i + 1), enqueue);
              start = i + 1;
              endEvent(enqueue);
            }
            lineEmpty = true;
          } else {
            lineEmpty = false;
            if (++eventBytes > limit) throw this.tooLarge('an event');
          }
        }
        keep(chunk.subarray(start), enqueue);
      },
      flush: (enqueue) => {
        for (const piece of held) enqueue(piece);
      },
    };
  }

  /** Whether the held event is exactly a `notifications/tools/list_changed` message. */
  private isListChanged(held: Uint8Array[], bytes: number): boolean {
    if (bytes === 0) return false;
    const text = Buffer.concat(held, bytes).toString('utf8');
    if (!text.includes(LIST_CHANGED)) return false;
    let data = '';
    let lines = 0;
    for (const line of text.split(/\r\n|\r|\n/)) {
      if (line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
      if (field === 'data') {
        data = lines === 0 ? value : `${data}\n${value}`;
        lines++;
      } else if (field === 'event') {
        if (value !== '' && value !== 'message') return false;
      } else if (field !== 'id' && field !== '') {
        return false; // retry, or a field the SDK's parser reports: left to it
      }
    }
    return isListChangedMessage(data);
  }
}

type Enqueue = (piece: Uint8Array) => void;
/** Ends the body with `last` instead of the rest, which is not read. */
type End = (last: Uint8Array) => void;

/**
 * What a guard does to a body, chunk by chunk: passes pieces on, throws to end it, or
 * ends it early with something else.
 */
interface ChunkFilter {
  transform(chunk: Uint8Array, enqueue: Enqueue, end: End): void;
  flush?(enqueue: Enqueue): void;
}

/** The id of a tools/list request body the SDK posts, so that its answer is counted. */
function listingRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'string' || body.length > 64 * 1024 || !body.includes('tools/list')) {
    return undefined;
  }
  try {
    const message = JSON.parse(body) as { method?: unknown; id?: unknown };
    const id = message.id;
    const usable = typeof id === 'string' || typeof id === 'number';
    return message.method === 'tools/list' && usable ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `body` through `filter`, read only as the consumer reads. Not `pipeThrough` and a
 * TransformStream: those add a writable side, its writer and controller, and a pipe with
 * its promises, about 8 KB per stream, and a held session keeps its GET stream open for
 * as long as it lives (bench/watch.bench.ts measures what a session costs).
 */
function filtered(
  body: ReadableStream<Uint8Array>,
  filter: ChunkFilter,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let enqueued = false;
        const enqueue = (piece: Uint8Array) => {
          enqueued = true;
          controller.enqueue(piece);
        };
        let ended = false;
        const end = (last: Uint8Array) => {
          ended = true;
          controller.enqueue(last);
        };
        try {
          // A chunk may pass nothing on (a notification taken off the stream, the start of
          // an event): read on until something did, since pull is not called again before.
          while (!enqueued) {
            const { done, value } = await reader.read();
            if (done) {
              filter.flush?.(enqueue);
              controller.close();
              return;
            }
            filter.transform(value, enqueue, end);
            if (ended) {
              controller.close();
              void reader.cancel().catch(() => {});
              return;
            }
          }
        } catch (error) {
          controller.error(error);
          void reader.cancel(error).catch(() => {});
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** A JSON-RPC `notifications/tools/list_changed` (a notification: no id), as text. */
export function isListChangedMessage(text: string): boolean {
  if (!text.includes(LIST_CHANGED)) return false;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    typeof message === 'object' &&
    message !== null &&
    !Array.isArray(message) &&
    (message as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    (message as { method?: unknown }).method === LIST_CHANGED &&
    !('id' in message)
  );
}
