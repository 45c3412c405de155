/**
 * Fair scheduling of REST requests between callers: one lane per caller (the API key named in the
 * request's headers, else the remote address), and each lane may use about one time slice of the
 * event loop per turn. A request whose lane has nothing waiting and has slice left runs at once,
 * in the uWS callback, as before; otherwise it waits in its lane (FIFO), and waiting lanes are
 * served round-robin, one slice each, from a `setImmediate` (after the poll phase, so other
 * callers' requests are read and answered in between). Every request is still handled whole (the
 * route handlers are synchronous and bounded: pages of at most 1,000, bodies of at most 1 MiB), so
 * a busy caller delays another by about one of its requests, not by all of them. A lane holds at
 * most `maxQueued` requests; more are refused at once (429). The lane key is read before
 * authentication: a caller naming another's key only shares that lane's turns, it gains nothing.
 * Time is `performance.now()` (tests pass their own). This file never reads requests or writes replies itself.
 */

import { performance } from 'node:perf_hooks';

export interface RequestLanesOptions<T> {
  /** Handles one request; `deferred` is true when called from the lanes' own turn (cork there). */
  run: (item: T, deferred: boolean) => void;
  /** Answers a request refused because its lane is full. */
  refuse: (item: T) => void;
  /** Time one lane may use per turn, ms. */
  sliceMs: number;
  /** Requests one lane may hold waiting. */
  maxQueued: number;
  /** The clock slices are measured with, ms (default performance.now). */
  now?: () => number;
}

/** 1 ms, as for WebSocket sessions (ws/work-queue.ts). */
export const REQUEST_SLICE_MS = 1;
/** Waiting requests per caller: far above what keep-alive connections hold in flight. */
export const REQUESTS_QUEUED_PER_LANE_MAX = 1024;

export class RequestLanes<T> {
  readonly #run: (item: T, deferred: boolean) => void;
  readonly #refuse: (item: T) => void;
  readonly #sliceMs: number;
  readonly #maxQueued: number;
  readonly #now: () => number;
  /** ms each lane used in the current turn (cleared every turn). */
  readonly #usage = new Map<string, number>();
  /** Lanes with requests waiting. */
  readonly #queues = new Map<string, T[]>();
  #runList: string[] = [];
  #immediate: NodeJS.Immediate | null = null;
  #closed = false;
  readonly #tickBound = (): void => this.#tick();

  constructor(options: RequestLanesOptions<T>) {
    this.#run = options.run;
    this.#refuse = options.refuse;
    this.#sliceMs = options.sliceMs;
    this.#maxQueued = options.maxQueued;
    this.#now = options.now ?? (() => performance.now());
  }

  submit(lane: string, item: T): void {
    if (this.#closed) return;
    const queue = this.#queues.get(lane);
    if (queue !== undefined) {
      if (queue.length >= this.#maxQueued) this.#refuse(item);
      else queue.push(item);
      return;
    }
    const used = this.#usage.get(lane) ?? 0;
    if (used >= this.#sliceMs) {
      this.#queues.set(lane, [item]);
      this.#runList.push(lane);
      this.#schedule();
      return;
    }
    const startMs = this.#now();
    this.#run(item, false);
    this.#usage.set(lane, used + this.#now() - startMs);
    this.#schedule(); // the turn's end clears the usage
  }

  /** Drops waiting requests (the server is closing; their connections go with it). */
  close(): void {
    this.#closed = true;
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#immediate = null;
    this.#queues.clear();
    this.#runList = [];
    this.#usage.clear();
  }

  #schedule(): void {
    if (this.#immediate === null && !this.#closed) this.#immediate = setImmediate(this.#tickBound);
  }

  /** A new turn: usage starts over; each waiting lane runs requests for one slice (at least one). */
  #tick(): void {
    this.#immediate = null;
    this.#usage.clear();
    const lanes = this.#runList;
    this.#runList = [];
    for (const lane of lanes) {
      const queue = this.#queues.get(lane)!;
      const startMs = this.#now();
      const deadlineMs = startMs + this.#sliceMs;
      let done = 0;
      do this.#run(queue[done++], true);
      while (done < queue.length && this.#now() < deadlineMs);
      queue.splice(0, done);
      this.#usage.set(lane, this.#now() - startMs);
      if (queue.length === 0) this.#queues.delete(lane);
      else this.#runList.push(lane);
    }
    if (this.#runList.length > 0 || this.#usage.size > 0) this.#schedule();
  }
}
