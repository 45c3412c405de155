/**
 * The clearing API's failed-authentication throttle, per source address: an address that fails
 * authentication AUTH_FAILURES_MAX times within one AUTH_FAILURE_WINDOW_MS window (the window
 * opens at its first failure) is refused with 429 on every clearing request until that window
 * ends, without its credential being checked, so a token cannot be guessed faster than
 * AUTH_FAILURES_MAX tries a minute per address. The refusal is an immediate answer: nothing waits,
 * no timer runs, other addresses are untouched. A success does not reset the count (a guesser that
 * holds one good credential must not earn more guesses). Memory is bounded: at most
 * AUTH_THROTTLE_ADDRESSES_MAX addresses are tracked; when full, ended windows are dropped, then
 * the oldest. This file keeps the counts; the server decides when to ask.
 */

/** Failures an address may make per window; the 21st request in the window is refused. */
export const AUTH_FAILURES_MAX = 20;
/** Window length, ms (one minute). */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Addresses tracked at once (a few hundred KB at most). */
export const AUTH_THROTTLE_ADDRESSES_MAX = 4096;

interface FailureWindow {
  startMs: number;
  failures: number;
}

export class AuthThrottle {
  readonly #now: () => number;
  readonly #byAddress = new Map<string, FailureWindow>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Ms until `address` may try again; 0 when it is not throttled. */
  retryAfterMs(address: string): number {
    const window = this.#byAddress.get(address);
    if (window === undefined) return 0;
    const endMs = window.startMs + AUTH_FAILURE_WINDOW_MS;
    const nowMs = this.#now();
    if (nowMs >= endMs) {
      this.#byAddress.delete(address);
      return 0;
    }
    return window.failures >= AUTH_FAILURES_MAX ? endMs - nowMs : 0;
  }

  /** Counts one failed authentication from `address`. */
  noteFailure(address: string): void {
    const nowMs = this.#now();
    const window = this.#byAddress.get(address);
    if (window !== undefined && nowMs < window.startMs + AUTH_FAILURE_WINDOW_MS) {
      window.failures++;
      return;
    }
    if (window !== undefined) this.#byAddress.delete(address);
    else if (this.#byAddress.size >= AUTH_THROTTLE_ADDRESSES_MAX) this.#makeRoom(nowMs);
    this.#byAddress.set(address, { startMs: nowMs, failures: 1 });
  }

  /** Addresses tracked now (tests check the bound). */
  get size(): number {
    return this.#byAddress.size;
  }

  #makeRoom(nowMs: number): void {
    for (const [address, window] of this.#byAddress) {
      if (nowMs >= window.startMs + AUTH_FAILURE_WINDOW_MS) this.#byAddress.delete(address);
    }
    if (this.#byAddress.size < AUTH_THROTTLE_ADDRESSES_MAX) return;
    // Map order is insertion order: the first key opened its window longest ago.
    const oldest = this.#byAddress.keys().next().value;
    if (oldest !== undefined) this.#byAddress.delete(oldest);
  }
}
