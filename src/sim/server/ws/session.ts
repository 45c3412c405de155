/**
 * One WebSocket connection: the authenticated key, its subscriptions, the command-rate window and
 * the outbound queue. Messages are queued and written in one corked batch per event-loop turn
 * (the hub schedules the flush), so a burst of engine events costs one syscall per connection,
 * not one per message. The slow-consumer rule lives in `flush`: before each data message, if uWS
 * already buffers more than the per-connection limit, that message's subscription overflows
 * (error 25, terminal) instead of growing the buffer without bound.
 */

import type { ApiKeyRecord } from '../../auth/index.ts';
import type { WebSocket } from '../uws.ts';
import type { Subscription } from './subscription.ts';

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
  commandWindowSecond: number;
  commandsInWindow: number;
  /** Queued frames and, in parallel, the subscription each belongs to (null: command reply). */
  readonly #texts: string[] = [];
  readonly #owners: Array<Subscription | null> = [];
  dirty: boolean;

  constructor(id: number, key: ApiKeyRecord) {
    this.id = id;
    this.key = key;
    this.ws = null;
    this.open = false;
    this.nextSid = 1;
    this.marketCount = 0;
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
  }
}
