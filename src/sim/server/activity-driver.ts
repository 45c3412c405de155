/**
 * Runs synthetic market activity on a timer: every tick it asks the activity module for the
 * updates due since the last tick (rate x elapsed time) and applies them in one batch, so a high
 * rate costs one timer callback per tick, not one per update. The activity module (src/sim/activity,
 * another helper's) is loaded lazily so the servers do not depend on it at import time.
 */

import type { Logger } from 'pino';
import type { SimEngine } from '../engine/index.ts';

/** What the driver needs of the activity module: a generator stepped with a batch size. */
interface ActivityGenerator {
  step(count: number): unknown;
}

const TICK_MS = 10;

export class ActivityDriver {
  readonly #engine: SimEngine;
  readonly #seed: number;
  readonly #updatesPerSec: number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #generator: ActivityGenerator | null = null;
  #lastMs = 0;
  #carry = 0;
  #stopped = false;

  constructor(engine: SimEngine, seed: number, updatesPerSec: number, logger: Logger) {
    this.#engine = engine;
    this.#seed = seed;
    this.#updatesPerSec = updatesPerSec;
    this.#logger = logger;
  }

  start(): void {
    if (this.#updatesPerSec <= 0) return;
    void this.#load().then(() => {
      if (this.#stopped || this.#generator === null) return;
      this.#lastMs = performance.now();
      this.#timer = setInterval(() => this.#tick(), TICK_MS);
    });
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  async #load(): Promise<void> {
    try {
      const modulePath = '../activity/index.ts';
      const activity = (await import(modulePath)) as Record<string, unknown>;
      const create = activity.createActivity as ((engine: SimEngine, options: { seed: number }) => ActivityGenerator) | undefined;
      if (typeof create !== 'function') throw new Error('src/sim/activity exports no createActivity');
      this.#generator = create(this.#engine, { seed: this.#seed });
    } catch (error) {
      this.#logger.error({ err: error }, 'market activity unavailable');
    }
  }

  #tick(): void {
    const nowMs = performance.now();
    const due = ((nowMs - this.#lastMs) * this.#updatesPerSec) / 1000 + this.#carry;
    this.#lastMs = nowMs;
    const count = Math.floor(due);
    this.#carry = due - count;
    if (count <= 0) return;
    try {
      this.#generator!.step(count);
    } catch (error) {
      this.#logger.error({ err: error }, 'market activity step failed; activity stopped');
      this.stop();
    }
  }
}
