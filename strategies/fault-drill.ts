/**
 * A fault drill, not a strategy: it misbehaves on purpose so an operator (and the tests) can see
 * how a deployment handles a plugin's failure. It rests one post-only bid on its first book, then,
 * `delayMs` later, fails outside any callback the host wraps:
 *   async-reject   leaves a promise rejected with an Error (unhandledRejection)
 *   timer-throw    throws an Error from its own setTimeout (uncaughtException)
 *   timer-throw-string  throws a string from its own setTimeout: no stack names the plugin
 *
 * The first two fault this instance only (orders cancelled, the rest trade on); the third cannot
 * be charged to a plugin and ends the run through the stop path (cancel-all, exit 1).
 */

import { OrderFlags, definePlugin, requireCount } from '../src/strategy/index.ts';
import type { Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

type Mode = 'async-reject' | 'timer-throw' | 'timer-throw-string';

class Faulty implements Strategy {
  readonly #mode: Mode;
  readonly #delayMs: number;
  #armed = false;

  constructor(mode: Mode, delayMs: number) {
    this.#mode = mode;
    this.#delayMs = delayMs;
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    if (this.#armed) return;
    const bid = book.bestBid();
    if (bid < 0) return;
    this.#armed = true;
    ctx.place(book.ticker, 'bid', bid, requireCount('1.00', 'size'), OrderFlags.POST_ONLY);
    const mode = this.#mode;
    setTimeout(() => {
      if (mode === 'async-reject') void failLater();
      else if (mode === 'timer-throw') throw new Error('faulty plugin: timer threw');
      else throw 'faulty plugin: a string, no stack';
    }, this.#delayMs);
  }
}

async function failLater(): Promise<void> {
  await Promise.resolve();
  throw new Error('faulty plugin: async rejection');
}

export default definePlugin<{ mode: Mode; delayMs: number }>({
  name: 'fault-drill',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['mode'],
    properties: {
      mode: { enum: ['async-reject', 'timer-throw', 'timer-throw-string'] },
      delayMs: { type: 'integer', minimum: 0, default: 1_500 },
    },
  },
  create: (params) => new Faulty(params.mode, params.delayMs),
});
