/**
 * Sample plugin (and the integration tests' reader of live candles): trades nothing; on every book
 * update and public trade of its markets it reads their live one-minute candlesticks through
 * ctx.candles (synchronous: the last snapshot the worker pool published) and keeps the largest
 * candle count and volume it saw, logging them at most every `logEveryMs`. Shows the read API:
 * length, per-index getters (no allocation), -1 for a period without trades.
 */

import { definePlugin } from '../src/strategy/index.ts';
import type { Strategy, StrategyBook, StrategyContext, TradeView } from '../src/strategy/index.ts';

export interface CandleWatcherParams {
  /** Candle period read, minutes (one the runtime keeps: workers.candleIntervalsMinutes). */
  intervalMinutes: number;
  /** Shortest time between two log lines, ms (0: never log). */
  logEveryMs: number;
}

class CandleWatcher implements Strategy {
  candlesSeen = 0;
  volumeSeen = 0;
  readonly #params: Readonly<CandleWatcherParams>;
  #loggedMs = 0;

  constructor(params: Readonly<CandleWatcherParams>) {
    this.#params = params;
  }

  #read(ticker: string, ctx: StrategyContext): void {
    const candles = ctx.candles(ticker, this.#params.intervalMinutes);
    if (candles === null) return;
    let volume = 0;
    for (let i = 0; i < candles.length; i++) volume += candles.volume(i);
    if (candles.length > this.candlesSeen) this.candlesSeen = candles.length;
    if (volume > this.volumeSeen) this.volumeSeen = volume;
    const every = this.#params.logEveryMs;
    const nowMs = ctx.nowMs();
    if (every > 0 && nowMs - this.#loggedMs >= every && candles.length > 0) {
      this.#loggedMs = nowMs;
      const last = candles.length - 1;
      ctx.log.info({ ticker, candles: candles.length, close: candles.close(last), volume: candles.volume(last) }, 'candles');
    }
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    this.#read(book.ticker, ctx);
  }

  onTrade(trade: TradeView, ctx: StrategyContext): void {
    this.#read(trade.marketTicker, ctx);
  }
}

export default definePlugin<CandleWatcherParams>({
  name: 'candle-watcher',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      intervalMinutes: { type: 'integer', enum: [1, 60, 1440], default: 1 },
      logEveryMs: { type: 'integer', minimum: 0, default: 0 },
    },
  },
  create: (params) => new CandleWatcher(params),
});
