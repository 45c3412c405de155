/**
 * Runs synthetic market activity on a timer: every tick it asks each activity module for the book
 * updates due since the last tick (rate x elapsed time) in one batch (`MarketActivity.step` for
 * Predictions, `MarginActivity.step` for Margin perpetuals, each at its own rate with its own
 * accounting), so a high rate costs one timer callback per tick, not one per update. Overshoot (a
 * step may emit a few more updates than asked) is carried into the next tick, so the long-run rate
 * is the configured one. The same tick steps the RFQ participants (src/sim/activity/rfq-participants.ts)
 * when an RFQ rate is set and Predictions activity is on. An activity whose step throws is stopped
 * with a logged error; the others and the server run on. It never decides what the participants do
 * (src/sim/activity does).
 */

import type { Logger } from 'pino';
import { MarginActivity, MarketActivity, RfqParticipants, type RfqParticipantsOptions } from '../activity/index.ts';
import type { SimEngine } from '../engine/index.ts';
import type { MarginEngine } from '../margin/index.ts';

/** Tick period, ms: 100 ticks per second keeps batches small at 50,000 updates per second. */
const TICK_MS = 10;
/**
 * Most updates one tick may owe, in ticks' worth: after a stall (an overloaded core) the driver
 * drops the backlog rather than run one long step that would block order entry behind it.
 */
const BACKLOG_MAX_TICKS = 5;

/** What the driver needs of an activity module. */
interface Steppable {
  step(nowMs: number, maxBookUpdates: number): number;
}

/** One activity at its rate: updates owed (positive) or emitted ahead (negative); off once it failed. */
class Lane {
  readonly activity: Steppable;
  readonly updatesPerSec: number;
  readonly failureMessage: string;
  owed = 0;
  running: boolean;

  constructor(activity: Steppable, updatesPerSec: number, failureMessage: string) {
    this.activity = activity;
    this.updatesPerSec = updatesPerSec;
    this.failureMessage = failureMessage;
    this.running = updatesPerSec > 0;
  }
}

/** The Margin activity's engine and rate (updates per second; 0 = none). */
export interface MarginActivityDrive {
  engine: MarginEngine;
  updatesPerSec: number;
}

export class ActivityDriver {
  readonly #activity: MarketActivity;
  /** Null when the Margin rate is 0 or there is no Margin engine. */
  readonly #marginActivity: MarginActivity | null;
  /** Null when the RFQ rate is 0. */
  readonly #rfq: RfqParticipants | null;
  readonly #predictions: Lane;
  readonly #margin: Lane | null;
  readonly #now: () => number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #lastMs = 0;

  /**
   * `rfq`: the RFQ participants' options (seeded with `seed`); null or a rate of 0 = none.
   * `margin`: the Margin engine and its activity rate; null or a rate of 0 = no Margin activity.
   */
  constructor(
    engine: SimEngine, seed: number, updatesPerSec: number, now: () => number, logger: Logger,
    rfq: Omit<RfqParticipantsOptions, 'seed'> | null = null, margin: MarginActivityDrive | null = null,
  ) {
    this.#activity = new MarketActivity(engine, { seed });
    this.#rfq = rfq !== null && rfq.rfqsPerMinute > 0 ? new RfqParticipants(engine, { ...rfq, seed }) : null;
    this.#marginActivity = margin !== null && margin.updatesPerSec > 0 ? new MarginActivity(margin.engine, { seed }) : null;
    this.#predictions = new Lane(this.#activity, updatesPerSec, 'market activity step failed; activity stopped');
    this.#margin = this.#marginActivity === null ? null : new Lane(this.#marginActivity, margin!.updatesPerSec, 'margin activity step failed; margin activity stopped');
    this.#now = now;
    this.#logger = logger;
  }

  get activity(): MarketActivity {
    return this.#activity;
  }

  get marginActivity(): MarginActivity | null {
    return this.#marginActivity;
  }

  get rfqParticipants(): RfqParticipants | null {
    return this.#rfq;
  }

  start(): void {
    if (this.#timer !== null || !this.#anyRunning()) return;
    this.#lastMs = performance.now();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#rfq?.detach();
    this.#marginActivity?.detach();
  }

  #anyRunning(): boolean {
    return this.#predictions.running || (this.#margin?.running ?? false);
  }

  #tick(): void {
    const nowMs = performance.now();
    const elapsedMs = nowMs - this.#lastMs;
    this.#lastMs = nowMs;
    // RFQs ride on Predictions activity (as before Margin activity existed: no timer without it).
    if (this.#rfq !== null && this.#predictions.running) this.#stepRfq();
    if (this.#predictions.running && !this.#stepLane(this.#predictions, elapsedMs)) this.#rfq?.detach();
    if (this.#margin !== null && this.#margin.running && !this.#stepLane(this.#margin, elapsedMs)) this.#marginActivity!.detach();
    if (!this.#anyRunning()) this.stop();
  }

  /** Steps one activity for the updates it owes; false when it threw (it is then off). */
  #stepLane(lane: Lane, elapsedMs: number): boolean {
    const owed = lane.owed + (elapsedMs * lane.updatesPerSec) / 1000;
    lane.owed = Math.min(owed, (lane.updatesPerSec * TICK_MS * BACKLOG_MAX_TICKS) / 1000);
    const count = Math.floor(lane.owed);
    if (count <= 0) return true;
    try {
      const produced = lane.activity.step(this.#now(), count);
      // A step that produced nothing (every market closed) forgives the debt instead of spinning.
      lane.owed = produced === 0 ? 0 : lane.owed - produced;
      return true;
    } catch (error) {
      this.#logger.error({ err: error }, lane.failureMessage);
      lane.running = false;
      return false;
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
