/**
 * Reconnect delays: exponential backoff with full jitter. Attempt n waits a uniform time in
 * [minMs, min(maxMs, minMs * 2^(n+1))], so a fleet of clients dropped together spreads its
 * reconnects instead of stampeding the exchange, and never waits less than minMs (a server that
 * accepts then closes at once cannot make us spin). Owns the attempt counter only; never sets timers.
 */

export interface BackoffOptions {
  /** Shortest delay, ms (> 0). */
  minMs: number;
  /** Longest delay, ms (>= minMs). */
  maxMs: number;
  /** Uniform [0, 1): Math.random in production, seededRandom(seed) in tests. */
  random: () => number;
}

export class Backoff {
  readonly minMs: number;
  readonly maxMs: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions) {
    if (!(options.minMs > 0) || !(options.maxMs >= options.minMs)) {
      throw new RangeError('Backoff: need 0 < minMs <= maxMs');
    }
    this.minMs = options.minMs;
    this.maxMs = options.maxMs;
    this.#random = options.random;
  }

  /** Attempts since the last reset (0 before the first delay). */
  get attempt(): number {
    return this.#attempt;
  }

  /** The delay before the next attempt, ms (integer); counts the attempt. */
  nextDelayMs(): number {
    // 2^(attempt+1) capped at 2^30 so the product stays a finite safe number for any attempt count.
    const factor = 2 ** Math.min(this.#attempt + 1, 30);
    const ceiling = Math.min(this.maxMs, this.minMs * factor);
    this.#attempt++;
    return Math.floor(this.minMs + this.#random() * (ceiling - this.minMs));
  }

  /** Back to the shortest delays: called once a connection has proved stable. */
  reset(): void {
    this.#attempt = 0;
  }
}
