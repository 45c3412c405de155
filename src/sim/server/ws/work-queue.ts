/**
 * The WebSocket work queue: client commands run in time slices, so that no session's commands
 * hold the event loop for more than about one slice per turn, however large or many they are.
 *
 *   frame in ──> session inbox ──> command ──> steps (snapshot batches, replies after them)
 *                   (FIFO)          (one unit)   (resumable: stop at the deadline, go on later)
 *
 * A command whose session has nothing waiting runs at once, inside the uWS message callback, as
 * before; small commands therefore answer in the same turn and in the same order. A session that
 * has used its slice in the current turn, or still has work, queues the command; queued sessions
 * are served round-robin, one slice each per turn, from a `setImmediate` (after the poll phase, so
 * other clients' requests and frames are read and answered between slices). A command's steps run
 * before the session's next command, so replies and snapshots keep their order. Work that belongs
 * to no session (un-indexing a closed session's subscriptions) runs as background steps, one slice
 * per turn. Queued command text is bounded per session (SESSION_QUEUED_COMMAND_CHARS_MAX): past
 * it a command is refused unread with error 27. Time is `performance.now()`, never the injected
 * clock. This file never parses commands (commands.ts) or formats messages (hub.ts).
 */

import { performance } from 'node:perf_hooks';
import { SESSION_QUEUED_COMMAND_CHARS_MAX } from './protocol.ts';
import type { WorkStep, WsSession } from './session.ts';

export interface WorkQueueOptions {
  /** Runs one command of a session (it may add steps with `addStep`). */
  runCommand: (session: WsSession, text: string) => void;
  /** Answers a command refused because the session's queue is full (error 27). */
  refuse: (session: WsSession) => void;
  /** Time one session (and the background work) may use per turn, ms. */
  sliceMs: number;
}

/**
 * 1 ms: small enough that a client sharing the loop with a busy one waits about a millisecond per
 * busy session, large enough that setImmediate's per-turn cost stays negligible.
 */
export const WORK_SLICE_MS = 1;

export class WorkQueue {
  readonly #runCommand: (session: WsSession, text: string) => void;
  readonly #refuse: (session: WsSession) => void;
  readonly #sliceMs: number;
  #runList: WsSession[] = [];
  readonly #background: WorkStep[] = [];
  #backgroundHead = 0;
  #immediate: NodeJS.Immediate | null = null;
  #turn = 0;
  #closed = false;
  readonly #drainBound = (): void => this.#drain();

  constructor(options: WorkQueueOptions) {
    this.#runCommand = options.runCommand;
    this.#refuse = options.refuse;
    this.#sliceMs = options.sliceMs;
  }

  /** A command frame arrived (already admitted by the rate limit): run it now or queue it. */
  receive(session: WsSession, text: string): void {
    const chars = text.length;
    if (this.#closed || !session.open) return;
    if (session.hasWork || session.queued) {
      if (session.inboxChars + chars > SESSION_QUEUED_COMMAND_CHARS_MAX) {
        this.#refuse(session);
        return;
      }
      session.inbox.push(text);
      session.inboxChars += chars;
      this.#enqueue(session);
      return;
    }
    session.inbox.push(text);
    session.inboxChars += chars;
    if (session.sliceTurn !== this.#turn) {
      session.sliceTurn = this.#turn;
      session.sliceUsedMs = 0;
    }
    if (session.sliceUsedMs >= this.#sliceMs) {
      this.#enqueue(session);
      return;
    }
    const startMs = performance.now();
    const done = this.#run(session, startMs + this.#sliceMs - session.sliceUsedMs);
    session.sliceUsedMs += performance.now() - startMs;
    if (!done) this.#enqueue(session);
  }

  /** Adds a step to the command now running: it runs after the steps added before it. */
  addStep(session: WsSession, step: WorkStep): void {
    session.steps.push(step);
  }

  /** Work of no session (it must not touch a session's output order); one slice per turn. */
  addBackground(step: WorkStep): void {
    if (this.#closed) return;
    this.#background.push(step);
    this.#schedule();
  }

  /** Stops serving: queued work is dropped. */
  close(): void {
    this.#closed = true;
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#immediate = null;
    for (const session of this.#runList) {
      session.queued = false;
      session.discardWork();
    }
    this.#runList = [];
    this.#background.length = 0;
    this.#backgroundHead = 0;
  }

  /** Runs a session's steps and commands until all are done (true) or the deadline passes (false). */
  #run(session: WsSession, deadlineMs: number): boolean {
    for (;;) {
      if (!session.open) {
        session.discardWork();
        return true;
      }
      if (session.stepsHead < session.steps.length) {
        if (!session.steps[session.stepsHead].run(deadlineMs)) return false;
        session.stepsHead++;
        if (session.stepsHead === session.steps.length) {
          session.steps.length = 0;
          session.stepsHead = 0;
        }
        continue;
      }
      if (session.inboxHead === session.inbox.length) {
        session.inbox.length = 0;
        session.inboxHead = 0;
        session.inboxChars = 0;
        return true;
      }
      if (performance.now() >= deadlineMs) return false;
      const text = session.inbox[session.inboxHead];
      session.inbox[session.inboxHead] = '';
      session.inboxHead++;
      session.inboxChars -= text.length;
      this.#runCommand(session, text);
    }
  }

  #enqueue(session: WsSession): void {
    if (session.queued) return;
    session.queued = true;
    this.#runList.push(session);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#immediate === null && !this.#closed) this.#immediate = setImmediate(this.#drainBound);
  }

  /** One turn: each queued session gets one slice, in arrival order; then the background work. */
  #drain(): void {
    this.#immediate = null;
    this.#turn++;
    const list = this.#runList;
    this.#runList = [];
    for (const session of list) {
      session.queued = false;
      session.sliceTurn = this.#turn;
      const startMs = performance.now();
      const done = this.#run(session, startMs + this.#sliceMs);
      session.sliceUsedMs = performance.now() - startMs;
      if (!done) this.#enqueue(session);
    }
    const deadlineMs = performance.now() + this.#sliceMs;
    const background = this.#background;
    while (this.#backgroundHead < background.length) {
      if (!background[this.#backgroundHead].run(deadlineMs)) break;
      this.#backgroundHead++;
    }
    if (this.#backgroundHead === background.length) {
      background.length = 0;
      this.#backgroundHead = 0;
    } else this.#schedule();
  }
}
