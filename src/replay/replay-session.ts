/**
 * The replay's feed session (the Feed's `createSession` option): no socket; it answers the feed's
 * commands the way the exchange does (`subscribed` with a sid, `ok` for get_snapshot and
 * update_subscription, `unsubscribed`), queued and handed over by the driver before the next
 * recorded frame, never inside send(). A channel's sid is the one the recording's own `subscribed`
 * reply gave it, so recorded data frames land on the subscription the feed knows. It owns those
 * replies only; frames come from the driver.
 */

import { ConnectionState } from '../feed/index.ts';
import type { FeedSession, WsSessionOptions } from '../feed/index.ts';

const FIRST_FREE_SID = 1_000_000; // above any recorded sid

export class ReplaySession implements FeedSession {
  state: ConnectionState = ConnectionState.IDLE;
  readonly #options: WsSessionOptions;
  readonly #recordedSids: ReadonlyMap<string, number>;
  readonly #sids = new Map<string, number>();
  readonly #replies: string[] = [];
  #nextSid = FIRST_FREE_SID;
  /** Commands the feed sent (subscribe, get_snapshot...), by command name. */
  readonly commands = new Map<string, number>();

  constructor(options: WsSessionOptions, recordedSids: ReadonlyMap<string, number>) {
    this.#options = options;
    this.#recordedSids = recordedSids;
  }

  get isOpen(): boolean {
    return this.state === ConnectionState.OPEN;
  }

  start(): void {
    if (this.state === ConnectionState.OPEN) return;
    this.state = ConnectionState.OPEN;
    this.#options.handler.onState(this.state);
    this.#options.handler.onOpen();
  }

  stop(): void {
    if (this.state === ConnectionState.CLOSED) return;
    this.state = ConnectionState.CLOSED;
    this.#options.handler.onState(this.state);
  }

  reconnect(): void {}

  onTick(): void {}

  /** The sid a channel was given (-1: not subscribed). */
  sidOf(channel: string): number {
    return this.#sids.get(channel) ?? -1;
  }

  send(text: string): boolean {
    if (this.state !== ConnectionState.OPEN) return false;
    let command: { id?: number; cmd?: string; params?: { channels?: string[]; sid?: number; sids?: number[]; action?: string } };
    try {
      command = JSON.parse(text) as typeof command;
    } catch {
      return true; // the feed only sends JSON; nothing to answer
    }
    const id = command.id ?? -1;
    const cmd = command.cmd ?? '';
    const params = command.params ?? {};
    const name = params.action ?? cmd;
    this.commands.set(name, (this.commands.get(name) ?? 0) + 1);
    switch (cmd) {
      case 'subscribe':
        for (const channel of params.channels ?? []) {
          let sid = this.#sids.get(channel);
          if (sid === undefined) {
            sid = this.#recordedSids.get(channel) ?? this.#nextSid++;
            this.#sids.set(channel, sid);
          }
          this.#replies.push(`{"id":${id},"type":"subscribed","msg":{"channel":"${channel}","sid":${sid}}}`);
        }
        break;
      case 'unsubscribe':
        for (const sid of params.sids ?? []) this.#replies.push(`{"id":${id},"type":"unsubscribed","sid":${sid}}`);
        break;
      case 'update_subscription':
      case 'get_snapshot': {
        // No seq: a reply that consumed a number would open a gap in the recorded stream.
        const sid = params.sid ?? params.sids?.[0] ?? -1;
        this.#replies.push(`{"id":${id},"type":"ok","sid":${sid},"msg":{}}`);
        break;
      }
      case 'list_subscriptions':
        this.#replies.push(`{"id":${id},"type":"ok","msg":[${[...this.#sids].map(([channel, sid]) => `{"channel":"${channel}","sid":${sid}}`).join(',')}]}`);
        break;
      default:
        break;
    }
    return true;
  }

  /** Hands queued replies to the feed; returns how many. */
  deliverReplies(deliver: (text: string) => void): number {
    const replies = this.#replies;
    let n = 0;
    // Bounded: replies queued while delivering (a reply causing a command) wait for the next call.
    const count = replies.length;
    for (; n < count; n++) deliver(replies[n]);
    replies.splice(0, count);
    return n;
  }
}
