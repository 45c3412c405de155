/**
 * One WebSocket connection: the authenticated key, its subscriptions, the command-rate window and
 * the outbound queue. Messages are queued and written in one corked batch per event-loop turn
 * (the hub schedules the flush), so a burst of engine events costs one syscall per connection,
 * not one per message. The slow-consumer rule lives in `flush`: before each data message, if uWS
 * already buffers more than the per-connection limit, that message's subscription overflows
 * (error 25, terminal) instead of growing the buffer without bound. The session also holds its
 * share of the work queue (work-queue.ts): commands waiting for their time slice and the remaining
 * steps of the command being run.
 */

import type { ApiKeyRecord } from '../../auth/index.ts';
import type { WebSocket } from '../../../net/uws.ts';
import { ChannelCoverage } from './coverage.ts';
import { CHANNEL_MARKET_COVERAGE_LIMIT, type Channel } from './protocol.ts';
import type { Subscription } from './subscription.ts';

/** One resumable piece of a command's work (a batch of snapshots, a reply that must follow one). */
export interface WorkStep {
  /**
   * Runs until done (true) or until `performance.now()` passes `deadlineMs` (false: run it again
   * later). Makes progress on every call, however late.
   */
  run(deadlineMs: number): boolean;
}

export interface SessionUserData {
  session: WsSession;
}

/** Called for a subscription whose message met a full buffer. */
export type OverflowHandler = (subscription: Subscription) => void;

export class WsSession {
  readonly id: number;
  readonly key: ApiKeyRecord;
  ws: WebSocket<SessionUserData> | null;
  open: boolean;
  readonly subscriptions = new Map<number, Subscription>();
  nextSid: number;
  /** Order book markets subscribed across this session's subscriptions (limit 500,000). */
  marketCount: number;
  /** Markets of the other market-filtered channels across this session (limit 500,000). */
  otherMarketCount: number;
  /** Per channel, how many subscriptions cover each market (limit CHANNEL_MARKET_COVERAGE_LIMIT). */
  readonly #coverage = new Map<Channel, ChannelCoverage>();
  commandWindowSecond: number;
  commandsInWindow: number;
  /** Commands received and not yet run, oldest first from `inboxHead`; their total length in characters. */
  readonly inbox: string[] = [];
  inboxHead: number;
  inboxChars: number;
  /** Steps of the command being run, in order, from `stepsHead`; they run before the next command. */
  readonly steps: WorkStep[] = [];
  stepsHead: number;
  /** In the work queue's run list (it has work left for a later turn). */
  queued: boolean;
  /** Work queue turn the session's slice usage belongs to, and the ms used in it. */
  sliceTurn: number;
  sliceUsedMs: number;
  /** Queued frames and, in parallel, the subscription each belongs to (null: command reply). */
  readonly #texts: string[] = [];
  readonly #owners: Array<Subscription | null> = [];
  dirty: boolean;
  /** Which endpoint the session connected to: the Predictions one or the Margin one (MARGIN_WS_PATH). */
  readonly exchange: 'predictions' | 'margin';

  constructor(id: number, key: ApiKeyRecord, exchange: 'predictions' | 'margin' = 'predictions') {
    this.id = id;
    this.key = key;
    this.exchange = exchange;
    this.ws = null;
    this.open = false;
    this.nextSid = 1;
    this.marketCount = 0;
    this.otherMarketCount = 0;
    this.inboxHead = 0;
    this.inboxChars = 0;
    this.stepsHead = 0;
    this.queued = false;
    this.sliceTurn = -1;
    this.sliceUsedMs = 0;
    this.commandWindowSecond = -1;
    this.commandsInWindow = 0;
    this.dirty = false;
  }

  get userId(): string {
    return this.key.userId;
  }

  /** Queues a frame; returns true when the session was clean (the hub must schedule a flush). */
  enqueue(owner: Subscription | null, text: string): boolean {
    this.#texts.push(text);
    this.#owners.push(owner);
    if (this.dirty) return false;
    this.dirty = true;
    return true;
  }

  get queuedCount(): number {
    return this.#texts.length;
  }

  /**
   * Writes the queue in one corked batch. `limitBytes` is the per-connection buffer limit; a data
   * message that finds more than that buffered overflows its subscription via `onOverflow`.
   */
  flush(limitBytes: number, onOverflow: OverflowHandler): void {
    this.dirty = false;
    const ws = this.ws;
    const texts = this.#texts;
    const owners = this.#owners;
    if (ws === null || !this.open || texts.length === 0) {
      texts.length = 0;
      owners.length = 0;
      return;
    }
    ws.cork(() => {
      // onOverflow may enqueue the error frame: iterate by index so it is written in this batch.
      for (let i = 0; i < texts.length; i++) {
        if (!this.open) break;
        const owner = owners[i];
        if (owner !== null) {
          if (!owner.alive) continue;
          if (ws.getBufferedAmount() > limitBytes) {
            onOverflow(owner);
            continue;
          }
        }
        ws.send(texts[i], false, false);
      }
    });
    texts.length = 0;
    owners.length = 0;
  }

  /** Drops whatever is queued (connection closing). */
  discardQueue(): void {
    this.#texts.length = 0;
    this.#owners.length = 0;
    this.dirty = false;
    this.discardWork();
  }

  /** The coverage counts of one channel (created on first use). */
  coverage(channel: Channel): ChannelCoverage {
    let coverage = this.#coverage.get(channel);
    if (coverage === undefined) this.#coverage.set(channel, (coverage = new ChannelCoverage(CHANNEL_MARKET_COVERAGE_LIMIT)));
    return coverage;
  }

  /** Removes an ended subscription and gives back what it counted against the session limits. */
  forget(sub: Subscription): void {
    if (!this.subscriptions.delete(sub.sid)) return;
    const coverage = this.coverage(sub.channel);
    if (sub.markets === null) {
      coverage.removeAll();
      return;
    }
    coverage.remove(sub.markets);
    if (sub.channel === 'orderbook_delta') this.marketCount -= sub.markets.size;
    else this.otherMarketCount -= sub.markets.size;
  }

  /** True while commands or steps wait (a new command must queue behind them). */
  get hasWork(): boolean {
    return this.inboxHead < this.inbox.length || this.stepsHead < this.steps.length;
  }

  /** Drops waiting commands and steps (connection closing). */
  discardWork(): void {
    this.inbox.length = 0;
    this.inboxHead = 0;
    this.inboxChars = 0;
    this.steps.length = 0;
    this.stepsHead = 0;
  }
}
