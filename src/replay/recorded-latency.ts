/**
 * The venue's latency model taken from the recording itself: each live request gives the time
 * from the frame that caused it to its send (the runtime's own decision and send work), from send
 * to its answer at the OMS, and from send to the first private frame about its order (user_order).
 * A replay request takes the hops of the live request of the same verb whose cause is nearest in
 * time, so the replay's orders stay in flight as long as the live ones did: a market maker that
 * waits for its amend's answer amends as often as it did live.
 *
 *   cause frame c --decide+send--> sent s --half of the first reply--> engine e --> answer a
 *                                                                        \------> private frame p
 *
 * The engine's time is not recorded; it is put halfway between the send and the first reply: the
 * answer, or the first private frame that shows the request done (a create's first user_order, an
 * amend's order at its new price, a cancel's order cancelled; a fill's update is not a reply). A
 * request refused because its order had ended (filled or cancelled while it was in flight)
 * reached the engine after that end: no earlier than the end's private frame. A recording without
 * requests gives no model (null).
 * It owns the hop arithmetic only; the venue schedules with it.
 */

import { RecordKind, recordText } from '../record/index.ts';
import type { Recording } from '../record/index.ts';
import type { UserOrderStatus } from '../feed/index.ts';
import { PrivateFrames } from './private-frames.ts';

export type RequestVerb = 'create' | 'amend' | 'cancel' | 'decrease';
export const REQUEST_VERBS: readonly RequestVerb[] = ['create', 'amend', 'cancel', 'decrease'];

/** Delays from a replay request's decision, ns: to the engine, engine -> answer, engine -> our private frames. */
export interface Hops {
  engineNs: number;
  answerNs: number;
  feedNs: number;
}

/** Where the venue gets its delays: fixed (the CLI's --*-latency-us) or recorded. */
export interface LatencyModel {
  readonly source: 'fixed' | 'recorded';
  /** `rank`: requests of this verb the same decision (instant) made before this one. */
  hops(verb: RequestVerb, decisionNs: number, rank: number): Hops;
  /** Engine -> our fill frame for matches no request caused (a recorded trade meeting our order), ns. */
  readonly feedNs: number;
}

export function fixedLatency(orderUs: number, answerUs: number, feedUs: number): LatencyModel {
  const hops: Hops = { engineNs: orderUs * 1000, answerNs: answerUs * 1000, feedNs: feedUs * 1000 };
  return { source: 'fixed', hops: () => hops, feedNs: feedUs * 1000 };
}

/** One live request's hops, keyed by its cause time, then its send. */
interface LiveHop {
  causeNs: number;
  sentNs: number;
  hops: Hops;
}

/** A send delay longer than this was not the decision path (a held intent, a retry): capped. */
const SEND_DELAY_MAX_NS = 50e6;

class RecordedLatency implements LatencyModel {
  readonly source = 'recorded' as const;
  readonly feedNs: number;
  readonly #byVerb: Map<RequestVerb, LiveHop[]>;
  readonly #fallback: Hops;

  constructor(byVerb: Map<RequestVerb, LiveHop[]>, feedNs: number) {
    this.#byVerb = byVerb;
    this.feedNs = feedNs;
    const all = [...byVerb.values()].flat().map((hop) => hop.hops);
    this.#fallback = { engineNs: median(all.map((h) => h.engineNs)), answerNs: median(all.map((h) => h.answerNs)), feedNs };
  }

  hops(verb: RequestVerb, decisionNs: number, rank: number): Hops {
    const list = this.#byVerb.get(verb);
    if (list === undefined || list.length === 0) return this.#fallback;
    // Binary search for the first cause at or after the decision, then the nearer of it and the one before.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].causeNs < decisionNs) lo = mid + 1;
      else hi = mid;
    }
    let nearest = lo;
    if (lo === list.length || (lo > 0 && decisionNs - list[lo - 1].causeNs <= list[lo].causeNs - decisionNs)) nearest = lo - 1;
    // Live requests of one cause are in send order: the rank-th of them, or the last.
    const causeNs = list[nearest].causeNs;
    let first = nearest;
    while (first > 0 && list[first - 1].causeNs === causeNs) first--;
    let pick = first + rank;
    while (pick > nearest && (pick >= list.length || list[pick].causeNs !== causeNs)) pick--;
    return list[pick].hops;
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[(sorted.length - 1) >> 1];
}

interface LiveRequest {
  verb: RequestVerb;
  /** The client order id (create) or the order id (the rest). */
  key: string;
  causeNs: number;
  sentNs: number;
  answerNs: number;
  orderId: string;
  /** An amend's new YES price (1/10,000 dollar); -1 for the other verbs. */
  price: number;
  /** The answer refused the request. */
  refused: boolean;
}

/** A recorded user_order frame: when it arrived and what it said of the order. */
interface OrderUpdate {
  ns: number;
  status: UserOrderStatus;
  price: number;
}

/** The recorded model, or null when the recording holds no answered request. */
export function recordedLatency(recording: Recording): LatencyModel | null {
  const requests = liveRequests(recording);
  if (requests.length === 0) return null;
  const updates = orderUpdates(recording);
  const byVerb = new Map<RequestVerb, LiveHop[]>();
  const feeds: number[] = [];
  for (const request of requests) {
    const orderUpdatesOf = updates.get(request.orderId);
    const privateNs = replyFrameNs(request, orderUpdatesOf);
    const firstReplyNs = privateNs < 0 ? request.answerNs : Math.min(privateNs, request.answerNs);
    let engineAt = request.sentNs + Math.max(0, Math.floor((firstReplyNs - request.sentNs) / 2));
    if (request.refused) engineAt = Math.max(engineAt, Math.min(request.answerNs, endedNs(request, orderUpdatesOf)));
    const sendDelay = Math.min(SEND_DELAY_MAX_NS, Math.max(0, request.sentNs - request.causeNs));
    const feedNs = privateNs < 0 ? -1 : Math.max(0, privateNs - engineAt);
    if (feedNs >= 0) feeds.push(feedNs);
    let list = byVerb.get(request.verb);
    if (list === undefined) byVerb.set(request.verb, (list = []));
    list.push({ causeNs: request.causeNs, sentNs: request.sentNs, hops: { engineNs: sendDelay + (engineAt - request.sentNs), answerNs: Math.max(0, request.answerNs - engineAt), feedNs } });
  }
  const feedNs = feeds.length === 0 ? 1e6 : median(feeds);
  for (const list of byVerb.values()) {
    for (const hop of list) if (hop.hops.feedNs < 0) hop.hops.feedNs = feedNs;
    // Requests end in answer order; one cause's requests are ranked in send order.
    list.sort((a, b) => a.causeNs - b.causeNs || a.sentNs - b.sentNs);
  }
  return new RecordedLatency(byVerb, feedNs);
}

/** Live requests with their answers, each with the frame that caused it (the rule of recordedHops in replay.ts). */
function liveRequests(recording: Recording): LiveRequest[] {
  const open = new Map<string, LiveRequest>();
  const done: LiveRequest[] = [];
  const waiting: LiveRequest[] = [];
  let lastFrameNs = 0;
  for (let i = 0; i < recording.count; i++) {
    const kind = recording.kinds[i];
    const ns = recording.timesNs[i];
    if (kind === RecordKind.FRAME) {
      // A FRAME record follows the requests it caused (file order), with an earlier or equal time.
      for (const request of waiting) request.causeNs = ns <= request.sentNs ? ns : lastFrameNs;
      waiting.length = 0;
      lastFrameNs = ns;
    } else if (kind === RecordKind.ORDER) {
      const parts = recordText(recording, i).split('|');
      const verb = parts[0];
      if (verb !== 'create' && verb !== 'amend' && verb !== 'cancel' && verb !== 'decrease') continue;
      const price = verb === 'amend' ? Number(parts[4]) : -1;
      const request: LiveRequest = { verb, key: parts[1], causeNs: lastFrameNs, sentNs: ns, answerNs: -1, orderId: verb === 'create' ? '' : parts[1], price, refused: false };
      open.set(`${verb}:${parts[1]}`, request);
      waiting.push(request);
    } else if (kind === RecordKind.ANSWER) {
      const parts = recordText(recording, i).split('|');
      const verb = parts[0].slice(0, parts[0].indexOf('_'));
      const request = open.get(`${verb}:${parts[1]}`);
      if (request === undefined) continue;
      open.delete(`${verb}:${parts[1]}`);
      request.answerNs = ns;
      request.refused = parts[0].endsWith('_reject');
      if (parts[0] === 'create_ack') request.orderId = parts[2];
      done.push(request);
    }
  }
  return done.filter((request) => request.answerNs >= request.sentNs);
}

/** The recorded user_order frames by order id, read by the feed's decoder, in arrival order. */
function orderUpdates(recording: Recording): Map<string, OrderUpdate[]> {
  const updates = new Map<string, OrderUpdate[]>();
  const frames = new PrivateFrames(recording);
  for (let i = 0; i < recording.count; i++) {
    if (!frames.read(i, 'user_order')) continue;
    const order = frames.decoder.userOrder;
    let list = updates.get(order.orderId);
    if (list === undefined) updates.set(order.orderId, (list = []));
    list.push({ ns: recording.timesNs[i], status: order.status, price: order.yesPrice });
  }
  return updates;
}

/** The first private frame after the send that shows this request done; -1 when none. */
function replyFrameNs(request: LiveRequest, updates: readonly OrderUpdate[] | undefined): number {
  if (updates === undefined) return -1;
  for (const update of updates) {
    if (update.ns <= request.sentNs) continue;
    if (request.verb === 'create' || request.verb === 'decrease') return update.ns;
    if (request.verb === 'cancel' && update.status === 'canceled') return update.ns;
    if (request.verb === 'amend' && update.price === request.price && update.status !== 'canceled') return update.ns;
  }
  return -1;
}

/** When the order was seen ending (executed or cancelled) between the request's send and its answer; -1 when it was not. */
function endedNs(request: LiveRequest, updates: readonly OrderUpdate[] | undefined): number {
  if (updates === undefined) return -1;
  for (const update of updates) {
    if (update.ns <= request.sentNs || update.ns > request.answerNs) continue;
    if (update.status !== 'resting') return update.ns;
  }
  return -1;
}
