/**
 * The resumable steps a command leaves in the work queue (work-queue.ts): registering a
 * subscription with its `subscribed` reply, order book snapshots (which also index each market for
 * deltas the moment its snapshot goes out, so no delta ever precedes its market's snapshot), ticker
 * snapshots, and the background un-indexing of a closed session's subscriptions. Each step checks
 * the deadline after every market and makes progress on every call. A step whose subscription or
 * session has ended stops quietly. This file never decides what a command means (commands.ts).
 */

import { performance } from 'node:perf_hooks';
import type { WsHub } from './hub.ts';
import type { WorkStep } from './session.ts';
import type { Subscription } from './subscription.ts';

/** Puts a subscription into the hub's indexes and sends its `subscribed` reply. */
export class RegisterStep implements WorkStep {
  readonly #hub: WsHub;
  readonly #sub: Subscription;
  readonly #reply: string;

  constructor(hub: WsHub, sub: Subscription, reply: string) {
    this.#hub = hub;
    this.#sub = sub;
    this.#reply = reply;
  }

  run(): boolean {
    const sub = this.#sub;
    if (!sub.alive || !sub.session.open) return true;
    this.#hub.register(sub);
    this.#hub.reply(sub.session, this.#reply);
    return true;
  }
}

/**
 * An `orderbook_snapshot` per ticker. `index`: the markets are new to the subscription (subscribe,
 * add_markets), and each joins the delta index right after its snapshot; otherwise (get_snapshot)
 * only the snapshot is sent.
 */
export class BookSnapshotStep implements WorkStep {
  readonly #hub: WsHub;
  readonly #sub: Subscription;
  readonly #tickers: readonly string[];
  readonly #index: boolean;
  #next = 0;

  constructor(hub: WsHub, sub: Subscription, tickers: readonly string[], index: boolean) {
    this.#hub = hub;
    this.#sub = sub;
    this.#tickers = tickers;
    this.#index = index;
  }

  run(deadlineMs: number): boolean {
    const sub = this.#sub;
    const tickers = this.#tickers;
    while (this.#next < tickers.length) {
      if (!sub.alive || !sub.session.open) return true;
      const ticker = tickers[this.#next++];
      if (this.#index) {
        if (sub.markets === null || !sub.markets.has(ticker)) continue;
        this.#hub.indexBookMarket(sub, ticker);
      }
      this.#hub.sendBookSnapshot(sub, ticker);
      if (this.#next < tickers.length && performance.now() >= deadlineMs) return false;
    }
    return true;
  }
}

/** The current `ticker` message of each market (send_initial_snapshot). */
export class TickerSnapshotStep implements WorkStep {
  readonly #hub: WsHub;
  readonly #sub: Subscription;
  readonly #tickers: readonly string[];
  readonly #tsMs: number;
  #next = 0;

  constructor(hub: WsHub, sub: Subscription, tickers: readonly string[], tsMs: number) {
    this.#hub = hub;
    this.#sub = sub;
    this.#tickers = tickers;
    this.#tsMs = tsMs;
  }

  run(deadlineMs: number): boolean {
    const sub = this.#sub;
    const tickers = this.#tickers;
    while (this.#next < tickers.length) {
      if (!sub.alive || !sub.session.open) return true;
      this.#hub.sendTickerSnapshot(sub, tickers[this.#next++], this.#tsMs);
      if (this.#next < tickers.length && performance.now() >= deadlineMs) return false;
    }
    return true;
  }
}

/**
 * Removes ended subscriptions from the per-market indexes, market by market (a closed session may
 * have held 500,000 markets; fan-out already skips them because they are no longer alive).
 */
export class UnindexStep implements WorkStep {
  readonly #hub: WsHub;
  readonly #subs: readonly Subscription[];
  #subIndex = 0;
  #markets: Iterator<string> | null = null;

  constructor(hub: WsHub, subs: readonly Subscription[]) {
    this.#hub = hub;
    this.#subs = subs;
  }

  run(deadlineMs: number): boolean {
    while (this.#subIndex < this.#subs.length) {
      const sub = this.#subs[this.#subIndex];
      if (sub.markets === null) {
        this.#subIndex++;
        continue;
      }
      this.#markets ??= sub.markets.values();
      for (;;) {
        const next = this.#markets.next();
        if (next.done === true) break;
        this.#hub.unindexMarket(sub, next.value);
        if (performance.now() >= deadlineMs) return false;
      }
      this.#markets = null;
      this.#subIndex++;
    }
    return true;
  }
}
