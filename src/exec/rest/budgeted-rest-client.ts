/**
 * The one client for REST reads off the hot path (market lookups, events, candle backfill, the
 * account's limits, balances, positions, reconciliation). Every read is signed (so the venue bills
 * the key's bucket, the one the account's limits describe), pays its cost to the ReadPacer first
 * (waiting asynchronously when the bucket is short), and a 429 is retried instead of failing:
 * the pacer empties, the read waits max(Retry-After, backoff) and pays again, at most
 * `attemptsMax` times in all. Backoff doubles from `backoffBaseMs` up to `backoffMaxMs`; jitter,
 * when a seeded source is given, scales it into [1/2, 1] so two clients that collide do not retry
 * in step. Any other status or a transport failure rejects with the ExecError as before.
 *
 * Owns pacing, costs and retries of reads; never writes (order groups and orders spend the write
 * bucket through the gate) and never parses what it reads.
 */

import { ExecError } from '../../oms/index.ts';
import type { Clock } from '../../core/index.ts';
import { EndpointCosts } from './endpoint-costs.ts';
import type { PresignedSignature } from './presigner.ts';
import { ReadPacer, SYSTEM_TIMERS, type PacerTimers } from './read-pacer.ts';
import { answerOf } from './signed-rest-client.ts';
import { readAllPages } from './wire-parse.ts';

/** What the client sends through (SignedRestClient). */
export interface SignedTransport {
  sign(method: string, path: string, signInline: boolean): Promise<PresignedSignature>;
  send(method: string, path: string, body: string | null, signed: PresignedSignature): Promise<{ status: number; retryAfter: string | null; text: string }>;
}

export interface ReadRetryOptions {
  /** Attempts in all for one read, the first included (>= 1). */
  attemptsMax: number;
  /** First backoff after a 429, ms; doubles per attempt. */
  backoffBaseMs: number;
  /** Largest backoff, ms (Retry-After above it is still honoured, up to retryAfterMaxMs). */
  backoffMaxMs: number;
  /** Largest Retry-After honoured, ms: a venue asking for an hour gets this instead. */
  retryAfterMaxMs: number;
}

/** Defaults, each with its unit: 8 attempts wait at least 11.3 s in all, many full refills of any tier's read bucket. */
export const READ_RETRY_DEFAULTS: Readonly<ReadRetryOptions> = Object.freeze({
  attemptsMax: 8,
  backoffBaseMs: 100,
  backoffMaxMs: 5_000,
  retryAfterMaxMs: 30_000,
});

export interface BudgetedRestClientOptions {
  transport: SignedTransport;
  pacer: ReadPacer;
  clock: Clock;
  retry?: ReadRetryOptions;
  /** A seeded source in [0, 1) for jitter; null: no jitter (default). */
  jitter?: (() => number) | null;
  timers?: PacerTimers;
}

export class BudgetedRestClient {
  readonly pacer: ReadPacer;
  readonly #transport: SignedTransport;
  readonly #clock: Clock;
  readonly #retry: ReadRetryOptions;
  readonly #jitter: (() => number) | null;
  readonly #timers: PacerTimers;
  #costs = new EndpointCosts();
  /** 429s answered and retried (tests, status). */
  retries = 0;

  constructor(options: BudgetedRestClientOptions) {
    this.pacer = options.pacer;
    this.#transport = options.transport;
    this.#clock = options.clock;
    this.#retry = options.retry ?? READ_RETRY_DEFAULTS;
    this.#jitter = options.jitter ?? null;
    this.#timers = options.timers ?? SYSTEM_TIMERS;
    if (!(this.#retry.attemptsMax >= 1)) throw new RangeError('BudgetedRestClient: retry.attemptsMax must be >= 1');
  }

  /** The venue's endpoint costs (GET /account/endpoint_costs); the default table is 10 for everything. */
  setCosts(costs: EndpointCosts): void {
    this.#costs = costs;
  }

  costOf(path: string): number {
    return this.#costs.costOf('GET', path);
  }

  /** One paced, retried, signed GET of `path` (the full path with its query): the parsed body. */
  async get(path: string): Promise<Record<string, unknown> | null> {
    const cost = this.#costs.costOf('GET', path);
    for (let attempt = 1; ; attempt++) {
      const granted = await this.pacer.take(cost);
      let answer: Awaited<ReturnType<SignedTransport['send']>>;
      try {
        const signed = await this.#transport.sign('GET', path, false);
        answer = await this.#transport.send('GET', path, null, signed);
      } finally {
        this.pacer.settled(granted);
      }
      const { status, retryAfter, text } = answer;
      if (status !== 429 || attempt >= this.#retry.attemptsMax) return answerOf('GET', path, status, text);
      this.retries++;
      this.pacer.onRateLimited();
      await this.#sleep(this.#delayMs(attempt, retryAfter));
    }
  }

  /** Follows `cursor` until it is empty (or repeats), at most pagesMax pages of `limit` items, each page a paced GET. */
  async pages(path: string, params: URLSearchParams, listName: string, limit: number, pagesMax: number): Promise<Record<string, unknown>[]> {
    return readAllPages((target) => this.get(target), path, params, listName, limit, pagesMax);
  }

  /** Closes the pacer: waiting reads reject. The transport is the owner's to close. */
  close(): void {
    this.pacer.close();
  }

  #delayMs(attempt: number, retryAfter: string | null): number {
    const retry = this.#retry;
    let backoff = retry.backoffBaseMs * 2 ** (attempt - 1);
    if (backoff > retry.backoffMaxMs) backoff = retry.backoffMaxMs;
    if (this.#jitter !== null) backoff = Math.round(backoff * (0.5 + this.#jitter() / 2));
    const asked = retryAfterMs(retryAfter, this.#clock.nowMs());
    return Math.min(retry.retryAfterMaxMs, Math.max(backoff, asked));
  }

  #sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.#timers.setTimeout(resolve, delayMs));
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from now; 0 when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number {
  if (value === null) return 0;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  return Number.isFinite(dateMs) && dateMs > nowMs ? dateMs - nowMs : 0;
}
