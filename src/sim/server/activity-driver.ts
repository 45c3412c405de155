/**
 * Runs synthetic market activity on a timer: every tick it asks the activity module for the book
 * updates due since the last tick (rate x elapsed time) in one batch (`MarketActivity.step`), so a
 * high rate costs one timer callback per tick, not one per update. Overshoot (a step may emit a
 * few more updates than asked) is carried into the next tick, so the long-run rate is the
 * configured one. The same tick steps the RFQ participants (src/sim/activity/rfq-participants.ts)
 * when an RFQ rate is set. It never decides what the participants do (src/sim/activity does).
 */

import type { Logger } from 'pino';
import { MarketActivity, RfqParticipants, type RfqParticipantsOptions } from '../activity/index.ts';
import type { SimEngine } from '../engine/index.ts';

/** Tick period, ms: 100 ticks per second keeps batches small at 50,000 updates per second. */
const TICK_MS = 10;
/**
 * Most updates one tick may owe, in ticks' worth: after a stall (an overloaded core) the driver
 * drops the backlog rather than run one long step that would block order entry behind it.
 */
const BACKLOG_MAX_TICKS = 5;

export class ActivityDriver {
  readonly #activity: MarketActivity;
  /** Null when the RFQ rate is 0. */
  readonly #rfq: RfqParticipants | null;
  readonly #now: () => number;
  readonly #updatesPerSec: number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #lastMs = 0;
  /** Updates owed (positive) or emitted ahead (negative). */
  #owed = 0;

  /** `rfq`: the RFQ participants' options (seeded with `seed`); null or a rate of 0 = none. */
  constructor(
    engine: SimEngine, seed: number, updatesPerSec: number, now: () => number, logger: Logger,
    rfq: Omit<RfqParticipantsOptions, 'seed'> | null = null,
  ) {
    this.#activity = new MarketActivity(engine, { seed });
    this.#rfq = rfq !== null && rfq.rfqsPerMinute > 0 ? new RfqParticipants(engine, { ...rfq, seed }) : null;
    this.#now = now;
    this.#updatesPerSec = updatesPerSec;
    this.#logger = logger;
  }

  get activity(): MarketActivity {
    return this.#activity;
  }

  get rfqParticipants(): RfqParticipants | null {
    return this.#rfq;
  }

  start(): void {
    if (this.#updatesPerSec <= 0 || this.#timer !== null) return;
    this.#lastMs = performance.now();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#rfq?.detach();
  }

  #tick(): void {
    const nowMs = performance.now();
    const owed = this.#owed + ((nowMs - this.#lastMs) * this.#updatesPerSec) / 1000;
    this.#lastMs = nowMs;
    this.#owed = Math.min(owed, (this.#updatesPerSec * TICK_MS * BACKLOG_MAX_TICKS) / 1000);
    if (this.#rfq !== null) this.#stepRfq();
    const count = Math.floor(this.#owed);
    if (count <= 0) return;
    try {
      const produced = this.#activity.step(this.#now(), count);
      // A step that produced nothing (every market closed) forgives the debt instead of spinning.
      this.#owed = produced === 0 ? 0 : this.#owed - produced;
    } catch (error) {
      this.#logger.error({ err: error }, 'market activity step failed; activity stopped');
      this.stop();
    }
  }

  #stepRfq(): void {
    try {
      this.#rfq!.step(this.#now());
    } catch (error) {
      this.#logger.error({ err: error }, 'RFQ participants step failed; RFQ activity stopped');
      this.#rfq!.detach();
    }
  }
}
