/**
 * A token bucket for pacing outbound commands under the exchange's per-session limit (10,000
 * commands/s, spec/websocket.md §8). Time comes from the caller (`nowMs`), so tests drive it and
 * nothing here reads a clock or sets a timer. Tokens refill continuously at `ratePerSec` up to
 * `burst`.
 */

export interface TokenBucketOptions {
  /** Sustained tokens per second (> 0). */
  ratePerSec: number;
  /** Capacity: the most tokens spendable at once (>= 1). */
  burst: number;
}

export class TokenBucket {
  readonly ratePerSec: number;
  readonly burst: number;
  #tokens: number;
  #lastMs: number;

  constructor(options: TokenBucketOptions, nowMs: number) {
    if (!(options.ratePerSec > 0) || !(options.burst >= 1)) throw new RangeError('TokenBucket: need ratePerSec > 0 and burst >= 1');
    this.ratePerSec = options.ratePerSec;
    this.burst = options.burst;
    this.#tokens = options.burst;
    this.#lastMs = nowMs;
  }

  #refill(nowMs: number): void {
    if (nowMs > this.#lastMs) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((nowMs - this.#lastMs) * this.ratePerSec) / 1000);
      this.#lastMs = nowMs;
    }
  }

  /** Takes one token if available. */
  tryTake(nowMs: number): boolean {
    this.#refill(nowMs);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#tokens);
  }

  /** Milliseconds until one token is available (0 when one is). */
  waitMs(nowMs: number): number {
    this.#refill(nowMs);
    if (this.#tokens >= 1) return 0;
    return Math.ceil(((1 - this.#tokens) * 1000) / this.ratePerSec);
  }
}
