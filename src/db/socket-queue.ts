import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/*
 * PGlite has one backend session, and pglite-socket multiplexes client connections onto it
 * one protocol message at a time. Its own queue keeps a transaction's messages together,
 * but not an extended-protocol exchange: postgres.js sends Parse, Bind, Describe, Execute,
 * Sync for every parameterized query, and another connection's Parse between them replaces
 * the unnamed statement ("bind message supplies 1 parameters, but prepared statement ""
 * requires 12"). This queue gives one connection the session from its first message of an
 * exchange to the Sync (or simple Query) that ends it, and for the whole of a transaction.
 */

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
/** Parse, Bind, Describe, Execute, Close, Flush: an exchange is under way until Sync. */
const EXCHANGE = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

export class ExchangeQueue {
  private queue: Pending[] = [];
  private processing = false;
  /** The connection whose exchange (or transaction) is in progress. */
  private owner: number | null = null;
  private lastHandlerId: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(
    handlerId: number,
    message: Uint8Array,
    onData: (data: Uint8Array) => void,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true;
      item.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  /** A connection that goes away mid-exchange or mid-transaction must not hold the session. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner === handlerId) this.owner = null;
    if (this.db.isInTransaction() && this.lastHandlerId === handlerId) {
      await this.db.exec('ROLLBACK');
      this.lastHandlerId = null;
    }
    void this.process();
  }

  private currentOwner(): number | null {
    if (this.owner !== null) return this.owner;
    return this.db.isInTransaction() ? this.lastHandlerId : null;
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = this.currentOwner();
        const index = owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === owner);
        if (index === -1) break; // wait for the owner's next message
        const [item] = this.queue.splice(index, 1);
        await this.run(item!);
      }
    } finally {
      this.processing = false;
    }
  }

  private async run(item: Pending): Promise<void> {
    let bytes = 0;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(item.message, {
          onRawData: (data: Uint8Array) => {
            bytes += data.length;
            item.onData(data);
          },
        }),
      );
    } catch (error) {
      item.reject(error);
      return;
    }
    const type = item.message[0];
    // A startup message begins with its length, not a type byte; it is never part of an exchange.
    const startup =
      item.message.length >= 8 &&
      new DataView(item.message.buffer, item.message.byteOffset).getInt32(4) === 196608;
    if (!startup && type !== undefined) {
      if (type === SYNC || type === QUERY) this.owner = null;
      else if (EXCHANGE.has(type)) this.owner = item.handlerId;
    }
    this.lastHandlerId = item.handlerId;
    item.resolve(bytes);
  }
}

/** Swaps the server's message queue for one that keeps exchanges whole; call before start(). */
export function keepExchangesWhole(server: PGLiteSocketServer, db: PGlite): void {
  (server as unknown as { queryQueue: ExchangeQueue }).queryQueue = new ExchangeQueue(db);
}
