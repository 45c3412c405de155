/**
 * Getting broken books whole again. A book goes out of sync on a sequence gap (BookStore reports
 * it), a negative or off-grid level, a stale stream (no message for `staleBookMs` while its market
 * is open, found on the feed's one coarse tick, not a timer per book), a terminal subscription
 * error (code 10/25) or a reconnect (the subscription manager re-creates the subscription and the
 * new sid's snapshots rebuild the book). This manager decides how each is repaired: books on a
 * live sid get a get_snapshot on that sid; books whose subscription is being re-created wait for
 * its snapshots; a repair not finished after `timeoutMs` (doubling per attempt, capped) is asked
 * again. Snapshot requests are batched and paced by their own token bucket, so a storm of gaps
 * cannot crowd out other commands or approach the exchange's command limit (the subscription
 * manager's bucket bounds the total as well).
 *
 * It never applies book data and never talks to the socket: it marks books (BookStore) and asks
 * the subscription manager for snapshots.
 */

import { ApplyStatus, type BookStore } from '../book/index.ts';
import { Channel } from './channels.ts';
import type { FeedCounters } from './feed-counters.ts';
import type { FeedLogger } from './feed-logger.ts';
import { MarketState, ResyncState } from './market-state.ts';
import { SubscriptionState, type SubscriptionManager } from './subscriptions.ts';
import { TokenBucket } from '../core/index.ts';

export interface ResyncOptions {
  subscriptions: SubscriptionManager;
  books: BookStore;
  counters: FeedCounters;
  logger: FeedLogger;
  nowMs: () => number;
  /** get_snapshot batches per second (default 20). */
  commandsPerSec?: number;
  /** Batches sendable at once (default 5). */
  burst?: number;
  /** Markets per batch (default 500). */
  marketsPerBatch?: number;
  /** Ask again when a book is still out of sync after this long, ms (default 5,000; doubles per attempt up to 16x). */
  timeoutMs?: number;
  /** A synced, open, subscribed book with no message for this long is stale, ms; 0 disables (default 60,000). */
  staleBookMs?: number;
}

const ATTEMPT_BACKOFF_MAX = 4; // timeout x 2^4 at most
/**
 * Markets looked at per tick, in turn. A walk of all 5,000 markets of a busy feed took ~3 ms of the
 * loop four times a second (three cache misses a market); in turn, with the feed's 250 ms tick,
 * each is looked at every 2.5 s, late by that much at most against a 30 s stale limit and a 5 s
 * repair timeout. Up to this many markets every tick looks at all of them.
 */
export const RESYNC_WALK_PER_TICK = 512;

export class ResyncManager {
  readonly #subscriptions: SubscriptionManager;
  readonly #books: BookStore;
  readonly #counters: FeedCounters;
  readonly #logger: FeedLogger;
  readonly #nowMs: () => number;
  readonly #bucket: TokenBucket;
  readonly #marketsPerBatch: number;
  readonly #timeoutMs: number;
  readonly staleBookMs: number;
  readonly #queue: MarketState[] = [];
  readonly #batch: string[] = [];
  #drainScheduled = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Where the next tick's walk starts (RESYNC_WALK_PER_TICK markets a tick). */
  #walkCursor = 0;

  constructor(options: ResyncOptions) {
    this.#subscriptions = options.subscriptions;
    this.#books = options.books;
    this.#counters = options.counters;
    this.#logger = options.logger;
    this.#nowMs = options.nowMs;
    this.#bucket = new TokenBucket(options.commandsPerSec ?? 20, options.burst ?? 5, options.nowMs());
    this.#marketsPerBatch = options.marketsPerBatch ?? 500;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.staleBookMs = options.staleBookMs ?? 60_000;
  }

  /** Markets waiting for a snapshot request. */
  get queuedCount(): number {
    return this.#queue.length;
  }

  /**
   * The market was just subscribed: its first snapshot is awaited like a resync, so a snapshot that
   * never comes (a lost reply, an add_markets that sends none) is asked for after the timeout.
   */
  onSubscribed(market: MarketState): void {
    market.resync = ResyncState.PENDING;
    market.initial = true;
    market.resyncReason = ApplyStatus.NO_SNAPSHOT;
    market.resyncSinceMs = this.#nowMs();
    market.resyncAttempts = 0;
  }

  /** The store reported a break of `market`'s book. */
  onOutOfSync(market: MarketState, reason: number): void {
    if (!market.subscribed) return;
    if (reason === ApplyStatus.SEQ_GAP) this.#counters.seqGaps++;
    market.initial = false;
    market.resync = ResyncState.PENDING;
    market.resyncReason = reason;
    market.resyncSinceMs = this.#nowMs();
    market.resyncAttempts = 0;
    // RESYNC comes from a reset subscription: its re-subscribe brings the snapshot.
    if (reason !== ApplyStatus.RESYNC) this.request(market);
  }

  /** A snapshot made the book whole: true when it repaired a break (not the first snapshot). */
  onSynced(market: MarketState): boolean {
    if (market.resync === ResyncState.NONE) return false;
    const repaired = !market.initial;
    market.resync = ResyncState.NONE;
    market.initial = false;
    market.resyncAttempts = 0;
    if (repaired) this.#counters.resyncsCompleted++;
    return repaired;
  }

  /** Queues a get_snapshot for the market's book (batched, paced). */
  request(market: MarketState): void {
    if (market.queued) return;
    market.queued = true;
    this.#queue.push(market);
    this.#scheduleDrain();
  }

  /** The connection dropped: queued requests named sids that no longer exist. */
  onDisconnect(): void {
    for (const market of this.#queue) market.queued = false;
    this.#queue.length = 0;
  }

  /** The coarse tick: stale books, overdue repairs, then the queue. */
  onTick(nowMs: number, markets: readonly MarketState[]): void {
    const staleMs = this.staleBookMs;
    const count = markets.length;
    const walk = Math.min(count, RESYNC_WALK_PER_TICK);
    let i = this.#walkCursor < count ? this.#walkCursor : 0;
    for (let seen = 0; seen < walk; seen++, i = i + 1 < count ? i + 1 : 0) {
      const market = markets[i];
      if (market === undefined || !market.subscribed) continue;
      if (market.resync === ResyncState.PENDING) {
        const waitMs = this.#timeoutMs * 2 ** Math.min(market.resyncAttempts, ATTEMPT_BACKOFF_MAX);
        if (nowMs - market.resyncSinceMs >= waitMs) {
          market.resyncAttempts++;
          market.resyncSinceMs = nowMs;
          this.#logger.info({ ticker: market.ticker, attempt: market.resyncAttempts }, 'feed: resync overdue, asking again');
          this.request(market);
        }
        continue;
      }
      if (staleMs > 0 && market.book.synced && market.info.open && nowMs < market.info.closeMs && nowMs - market.lastMessageMs >= staleMs) {
        this.#counters.staleBooks++;
        this.#books.markOutOfSync(market.ticker, ApplyStatus.STALE); // reported -> onOutOfSync -> request
      }
    }
    this.#walkCursor = i;
    this.#drain();
  }

  dispose(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #scheduleDrain(): void {
    // A gap breaks every book of a sid in one synchronous loop: batch them all into one request.
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    queueMicrotask(() => {
      this.#drainScheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    const queue = this.#queue;
    let taken = 0;
    while (taken < queue.length) {
      const nowMs = this.#nowMs();
      if (!this.#bucket.tryTake(1, nowMs)) {
        if (this.#timer === null) {
          this.#timer = setTimeout(() => {
            this.#timer = null;
            this.#drain();
          }, Math.max(1, this.#bucket.waitMs(1, nowMs)));
          this.#timer.unref?.();
        }
        break;
      }
      const batch = this.#batch;
      batch.length = 0;
      while (taken < queue.length && batch.length < this.#marketsPerBatch) {
        const market = queue[taken++];
        market.queued = false;
        if (!market.subscribed || market.resync === ResyncState.NONE) continue;
        const subscription = this.#subscriptions.subscriptionOfMarket(Channel.ORDERBOOK, market.ticker);
        // Not live: the (re)subscribe in progress brings the snapshot.
        if (subscription === undefined || subscription.state !== SubscriptionState.ACTIVE) continue;
        batch.push(market.ticker);
      }
      if (batch.length > 0) {
        this.#counters.resyncsRequested += this.#subscriptions.requestSnapshots(Channel.ORDERBOOK, batch);
      }
    }
    queue.splice(0, taken);
  }
}
