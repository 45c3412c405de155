/**
 * How many of a session's subscriptions of one channel cover each market, so that one session
 * cannot multiply a market's messages by subscribing to it over and over (protocol.ts,
 * CHANNEL_MARKET_COVERAGE_LIMIT). A subscription without a market filter covers every market.
 * Counting is per market in a Map, plus, for the largest count, the number of markets covered at
 * least c times for each c up to the limit (a handful of integers), so no check ever scans the
 * session's markets. This file owns the counting; commands.ts decides when to check and count.
 */

export class ChannelCoverage {
  readonly #limit: number;
  /** Subscriptions of the channel without a market filter. */
  #all = 0;
  /** Filtered subscriptions covering each market (absent: 0). */
  readonly #byMarket = new Map<string, number>();
  /** #atLeast[c]: markets covered by at least c filtered subscriptions (c = 1..limit). */
  readonly #atLeast: number[];

  constructor(limit: number) {
    this.#limit = limit;
    this.#atLeast = new Array<number>(limit + 2).fill(0);
  }

  /** Whether one more subscription without a market filter stays within the limit everywhere. */
  canAddAll(): boolean {
    return this.#all + this.#maxByMarket() + 1 <= this.#limit;
  }

  /** Whether one more subscription covering `markets` stays within the limit on each of them. */
  canAdd(markets: Iterable<string>): boolean {
    const room = this.#limit - this.#all - 1;
    if (room < 0) return false;
    for (const ticker of markets) if ((this.#byMarket.get(ticker) ?? 0) > room) return false;
    return true;
  }

  addAll(): void {
    this.#all++;
  }

  removeAll(): void {
    this.#all--;
  }

  add(markets: Iterable<string>): void {
    for (const ticker of markets) {
      const count = (this.#byMarket.get(ticker) ?? 0) + 1;
      this.#byMarket.set(ticker, count);
      if (count < this.#atLeast.length) this.#atLeast[count]++;
    }
  }

  remove(markets: Iterable<string>): void {
    for (const ticker of markets) {
      const count = this.#byMarket.get(ticker);
      if (count === undefined) continue;
      if (count < this.#atLeast.length) this.#atLeast[count]--;
      if (count === 1) this.#byMarket.delete(ticker);
      else this.#byMarket.set(ticker, count - 1);
    }
  }

  #maxByMarket(): number {
    for (let count = this.#atLeast.length - 1; count > 0; count--) if (this.#atLeast[count] > 0) return count;
    return 0;
  }
}
