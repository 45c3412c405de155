/**
 * The live runtime's periodic work, on the recording's clock: every timer the main job runs with
 * setInterval (the feed's coarse tick, the strategy host's shared timer, the OMS and router tick
 * that drains held intents, the keep-warm pass) becomes a task here, run by the replay driver
 * whenever the recording's time passes the task's next due time. A long silence in the recording
 * runs a task once, not once per missed period (as a blocked event loop does live). Tasks due at
 * the same time run in the order they were added. Owns the schedule only.
 */

export interface TickTask {
  readonly name: string;
  readonly periodMs: number;
  readonly run: (nowMs: number) => void;
  nextMs: number;
}

export class ReplayTicks {
  readonly #tasks: TickTask[] = [];
  /** The earliest due time, kept current (the driver asks once per frame). */
  #nextMs = Infinity;
  /** Runs per task name (tests and the report's evidence that each clock moved). */
  readonly runs = new Map<string, number>();

  /** A task due first at `startMs + periodMs`; a period <= 0 adds nothing (the timer is off). */
  add(name: string, periodMs: number, startMs: number, run: (nowMs: number) => void): void {
    if (!(periodMs > 0)) return;
    this.#tasks.push({ name, periodMs, run, nextMs: startMs + periodMs });
    this.runs.set(name, 0);
    if (startMs + periodMs < this.#nextMs) this.#nextMs = startMs + periodMs;
  }

  /** The earliest due time, Infinity with no task. */
  nextDueMs(): number {
    return this.#nextMs;
  }

  /** Runs every task due at `nowMs`; returns how many ran. */
  runDue(nowMs: number): number {
    let ran = 0;
    for (const task of this.#tasks) {
      if (nowMs < task.nextMs) continue;
      // The next period counts from the due time, so ticks stay on their grid; after a silence, from now.
      task.nextMs = task.nextMs + task.periodMs > nowMs ? task.nextMs + task.periodMs : nowMs + task.periodMs;
      this.runs.set(task.name, (this.runs.get(task.name) ?? 0) + 1);
      task.run(nowMs);
      ran++;
    }
    let next = Infinity;
    for (const task of this.#tasks) if (task.nextMs < next) next = task.nextMs;
    this.#nextMs = next;
    return ran;
  }
}
