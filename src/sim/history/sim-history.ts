/**
 * SimHistory: what the simulator remembers about its markets for the candlestick and historical
 * routes. It listens to the engine like any front end and records, per market, a bounded tape
 * (market-tape.ts) of public trades (price, count, taker side, trade sequence), book top changes
 * (best YES bid / ask after each book delta that moved them) and open interest (after each
 * trade's fills, and zero at settlement). Candlesticks are computed on request from the tape's own
 * columns by the shared CandleAggregator (src/workers/candles): the same arithmetic the runtime's
 * worker pool runs. It also places the historical cutoff: `cutoffLagMs` behind the clock.
 *
 * Listener work per engine event is a map lookup and, when something changed, one row written in
 * preallocated typed arrays. This file owns recording and the read walks; JSON is candle-json.ts
 * and the routes'.
 */

import type { Count, Price } from '../../core/index.ts';
import { CandleAggregator, CandleTable, planCandles, type CandlePlan } from '../../workers/index.ts';
import type { EngineListener, Fill, Market, MarketLifecycleEvent, SimEngine, Trade } from '../engine/index.ts';
import { MarketTape } from './market-tape.ts';

export interface SimHistoryOptions {
  /** Rows (trades, top changes, open interest changes) kept per market. */
  rowsPerMarket: number;
  /** The historical cutoff trails the clock by this much, ms. */
  cutoffLagMs: number;
}

/**
 * rowsPerMarket 65,536: 2.6 MB per busy market at 40 bytes a row, days of one-minute candles for a
 * market trading every few seconds. cutoffLagMs one hour: the exchange's real cutoff trails by
 * months; an hour keeps the live routes authoritative for a test run while the historical ones
 * still see data in a long paper-trading session (tests set 0).
 */
export const HISTORY_DEFAULTS: Readonly<SimHistoryOptions> = { rowsPerMarket: 65_536, cutoffLagMs: 3_600_000 };

export interface CandleAnswer {
  plan: CandlePlan;
  /** One table per requested ticker, same order; empty for a market with nothing recorded. */
  tables: CandleTable[];
}

export interface TradeWalkQuery {
  ticker: string | null;
  /** Inclusive bounds, Unix seconds; null for none. */
  minTs: number | null;
  maxTs: number | null;
  /** Trades strictly before this instant, Unix ms. */
  beforeMs: number;
  limit: number;
  /** Trades with a smaller sequence number than this (the cursor), or -1 from the newest. */
  beforeSeq: number;
}

interface Entry {
  readonly tape: MarketTape;
  readonly market: Market;
}

export class SimHistory implements Partial<EngineListener> {
  readonly options: Readonly<SimHistoryOptions>;
  readonly #engine: SimEngine;
  readonly #entries = new Map<string, Entry>();

  constructor(engine: SimEngine, options: Partial<SimHistoryOptions> = {}) {
    this.options = Object.freeze({ ...HISTORY_DEFAULTS, ...options });
    this.#engine = engine;
  }

  /** Starts recording; returns the function that stops it. */
  attach(): () => void {
    return this.#engine.subscribe(this);
  }

  tape(ticker: string): MarketTape | undefined {
    return this.#entries.get(ticker)?.tape;
  }

  /** The historical cutoff at `nowMs`, Unix ms. */
  cutoffMs(nowMs: number): number {
    return Math.max(0, nowMs - this.options.cutoffLagMs);
  }

  // ---------------------------------------------------------------------------------------------
  // Recording (engine listener).

  onBookDelta(market: Market, _side: 'yes' | 'no', _price: Price, _delta: Count, _order: unknown, _reason: unknown, tsMs: number): void {
    this.#entry(market).tape.recordTop(tsMs, market.bestBid(), market.bestAsk());
  }

  onTrade(market: Market, trade: Trade): void {
    this.#entry(market).tape.recordTrade(trade.tsMs, trade.price, trade.count, trade.takerSide, trade.seq);
  }

  onFill(_userId: string, fill: Fill): void {
    const entry = this.#entries.get(fill.ticker);
    if (entry !== undefined) entry.tape.recordOpenInterest(fill.tsMs, entry.market.openInterest);
  }

  onMarketLifecycle(event: MarketLifecycleEvent): void {
    if (event.eventType !== 'settled') return;
    this.#entry(event.market).tape.recordOpenInterest(event.tsMs, event.market.openInterest);
  }

  #entry(market: Market): Entry {
    let entry = this.#entries.get(market.ticker);
    if (entry === undefined) {
      entry = { tape: new MarketTape(market.ticker, this.options.rowsPerMarket), market };
      this.#entries.set(market.ticker, entry);
    }
    return entry;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads.

  /**
   * Candlesticks of `tickers` for one request window: the plan (with the aggregate-size cap over
   * all the tickers) and one table per ticker. Preconditions as planCandles (checked by routes).
   */
  candles(tickers: readonly string[], intervalMinutes: number, startTs: number, endTs: number, asOfMs: number): CandleAnswer {
    const plan = planCandles(intervalMinutes, startTs, endTs, tickers.length);
    const tables: CandleTable[] = [];
    for (const ticker of tickers) {
      const table = CandleTable.create(plan.periods);
      const tape = this.tape(ticker);
      if (tape !== undefined && plan.periods > 0) {
        const aggregator = new CandleAggregator(plan, 1, asOfMs, table, tape.seeds());
        // Rows after the last period cannot change it: stop there (the ring is time ordered).
        const rows = tape.firstAfter(plan.lastEndTs * 1000);
        const first = tape.head;
        const capacity = tape.batch.capacity;
        if (first + rows <= capacity) aggregator.apply(tape.batch, first, first + rows);
        else {
          aggregator.apply(tape.batch, first, capacity);
          aggregator.apply(tape.batch, 0, first + rows - capacity);
        }
        aggregator.finish();
      }
      tables.push(table);
    }
    return { plan, tables };
  }

  /**
   * Public trades newest first across the tapes (one tape when `ticker` is given), filtered, at
   * most `limit`, and whether more match after them. The tapes are each in sequence order, so
   * this is a k-way merge walking backwards.
   */
  trades(query: TradeWalkQuery): { items: Trade[]; more: boolean } {
    const tapes: MarketTape[] = [];
    if (query.ticker !== null) {
      const tape = this.tape(query.ticker);
      if (tape !== undefined) tapes.push(tape);
    } else {
      for (const entry of this.#entries.values()) tapes.push(entry.tape);
    }
    const minMs = query.minTs === null ? -Infinity : query.minTs * 1000;
    const maxMs = query.maxTs === null ? Infinity : query.maxTs * 1000 + 999;
    // Per tape: logical index of its next candidate (newest first), -1 when exhausted.
    const next = tapes.map((tape) => tape.size - 1);
    const advance = (k: number): void => {
      const tape = tapes[k];
      let i = next[k];
      for (; i >= 0; i--) {
        const row = tape.rowAt(i);
        const seq = tape.tradeSeq[row];
        if (seq < 0) continue;
        if (query.beforeSeq !== -1 && seq >= query.beforeSeq) continue;
        const ts = tape.batch.tsMs[row];
        if (ts >= query.beforeMs || ts < minMs || ts > maxMs) continue;
        break;
      }
      next[k] = i;
    };
    for (let k = 0; k < tapes.length; k++) advance(k);
    const items: Trade[] = [];
    for (;;) {
      let best = -1;
      let bestSeq = -1;
      for (let k = 0; k < tapes.length; k++) {
        if (next[k] < 0) continue;
        const seq = tapes[k].tradeSeq[tapes[k].rowAt(next[k])];
        if (seq > bestSeq) {
          bestSeq = seq;
          best = k;
        }
      }
      if (best === -1) return { items, more: false };
      if (items.length === query.limit) return { items, more: true };
      items.push(this.#tradeAt(tapes[best], tapes[best].rowAt(next[best])));
      next[best]--;
      advance(best);
    }
  }

  #tradeAt(tape: MarketTape, row: number): Trade {
    const seq = tape.tradeSeq[row];
    return {
      tradeId: this.#engine.venue.tradeId(seq),
      ticker: tape.ticker,
      price: tape.batch.price[row] as Price,
      count: tape.batch.count[row] as Count,
      takerSide: tape.isBidTaker(row) ? 'bid' : 'ask',
      isBlockTrade: false,
      tsMs: tape.batch.tsMs[row],
      seq,
    };
  }
}
