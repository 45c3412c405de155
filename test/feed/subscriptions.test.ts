/**
 * Goal: the subscription manager sends the right commands with increasing ids, keeps id -> pending
 * and sid -> subscription straight, batches and coalesces market lists, paces commands through its
 * token bucket, and re-creates subscriptions after a reconnect, a terminal error or a timeout.
 * Method: a fake command sink and a manual clock; replies are fed as decoded control records.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/feed/feed-logger.ts';
import { LostReason, SubscriptionManager, SubscriptionState, type Subscription } from '../../src/feed/subscriptions.ts';
import { FakeSink, TestClock, errorReply, ok, settle, subscribed, unsubscribedReply, type SentCommand } from './fakes.ts';

interface Harness {
  manager: SubscriptionManager;
  sink: FakeSink;
  clock: TestClock;
  lost: { channel: string; sid: number; reason: LostReason }[];
  active: { channel: string; sid: number }[];
  errors: { kind: string | null; code: number }[];
}

const managers: SubscriptionManager[] = [];
afterEach(() => {
  for (const manager of managers.splice(0)) manager.dispose();
});

function harness(options: Partial<ConstructorParameters<typeof SubscriptionManager>[0]> = {}): Harness {
  const sink = new FakeSink();
  const clock = new TestClock();
  const lost: Harness['lost'] = [];
  const active: Harness['active'] = [];
  const errors: Harness['errors'] = [];
  const manager = new SubscriptionManager({
    sink,
    nowMs: clock.nowMs,
    logger: silentLogger,
    hooks: {
      onActive: (s: Subscription, sid: number) => active.push({ channel: s.channel, sid }),
      onLost: (s: Subscription, sid: number, reason: LostReason) => lost.push({ channel: s.channel, sid, reason }),
      onCommandError: (kind, _s, code) => errors.push({ kind, code }),
    },
    ...options,
  });
  managers.push(manager);
  return { manager, sink, clock, lost, active, errors };
}

function tickers(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
}

describe('SubscriptionManager', () => {
  it('coalesces requests into one subscribe, then add_markets chunks once the sid is known', async () => {
    const { manager, sink, active } = harness({ maxMarketsPerCommand: 3 });
    manager.addMarkets('orderbook_delta', ['A', 'B']);
    manager.addMarkets('orderbook_delta', ['C', 'D', 'E', 'B']);
    await settle();
    const [subscribe, ...rest] = sink.take();
    expect(rest).toEqual([]);
    expect(subscribe).toEqual({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: ['A', 'B', 'C'] } });

    manager.handleSubscribed(subscribed(1, 'orderbook_delta', 7));
    expect(active).toEqual([{ channel: 'orderbook_delta', sid: 7 }]);
    expect(manager.subscriptionOfSid(7)?.state).toBe(SubscriptionState.ACTIVE);
    await settle();
    expect(sink.take()).toEqual([
      { id: 2, cmd: 'update_subscription', params: { sids: [7], market_tickers: ['D', 'E'], action: 'add_markets' } },
    ]);
    manager.handleOk(ok(2, 7, 3));
    expect(manager.pendingCommandCount).toBe(0);
    expect(manager.sidsByChannel()).toEqual({ orderbook_delta: [7] });
  });

  it('splits markets over subscriptions of at most maxMarketsPerSubscription', async () => {
    const { manager, sink } = harness({ maxMarketsPerSubscription: 2 });
    manager.addMarkets('orderbook_delta', tickers('M', 5));
    await settle();
    const sent = sink.take();
    expect(sent.map((c) => c.params?.market_tickers)).toEqual([['M-0', 'M-1'], ['M-2', 'M-3'], ['M-4']]);
    expect(sent.map((c) => c.id)).toEqual([1, 2, 3]);
    expect(manager.subscriptions('orderbook_delta')).toHaveLength(3);
    expect(manager.subscriptionOfMarket('orderbook_delta', 'M-3')).toBe(manager.subscriptions('orderbook_delta')[1]);
  });

  it('paces commands through the token bucket', async () => {
    const { manager, sink, clock } = harness({ commandsPerSec: 10, commandBurst: 2, maxMarketsPerSubscription: 1 });
    manager.addMarkets('trade', tickers('T', 12));
    await settle();
    expect(sink.take()).toHaveLength(2); // the burst
    const sentAt: number[] = [];
    for (let step = 0; step < 20; step++) {
      clock.advance(50);
      manager.flush();
      for (const _command of sink.take()) sentAt.push(clock.ms);
    }
    // 10/s: one every 100 ms for the remaining 10 commands.
    expect(sentAt).toHaveLength(10);
    for (let i = 1; i < sentAt.length; i++) expect(sentAt[i] - sentAt[i - 1]).toBeGreaterThanOrEqual(100);
  });

  it('numbers commands with increasing ids that are never reused, across reconnects', async () => {
    const { manager, sink } = harness();
    manager.addChannel('market_lifecycle_v2');
    manager.addMarkets('fill', ['F1']);
    await settle();
    const first = sink.take();
    manager.onClose();
    manager.onOpen();
    const second = sink.take();
    const ids = [...first, ...second].map((c) => c.id);
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(second.map((c) => c.params?.channels)).toEqual([['market_lifecycle_v2'], ['fill']]);
  });

  it('reports every sid lost on a reconnect and resubscribes everything with new sids', async () => {
    const { manager, sink, lost } = harness();
    manager.addMarkets('orderbook_delta', ['A', 'B']);
    manager.addChannel('market_lifecycle_v2');
    await settle();
    const [book, lifecycle] = sink.take();
    manager.handleSubscribed(subscribed(book.id, 'orderbook_delta', 1));
    manager.handleSubscribed(subscribed(lifecycle.id, 'market_lifecycle_v2', 2));

    sink.isOpen = false;
    manager.onClose();
    expect(lost).toEqual([
      { channel: 'orderbook_delta', sid: 1, reason: LostReason.RECONNECT },
      { channel: 'market_lifecycle_v2', sid: 2, reason: LostReason.RECONNECT },
    ]);
    expect(manager.subscriptionOfSid(1)).toBeUndefined();
    sink.isOpen = true;
    manager.onOpen();
    const again = sink.take();
    expect(again.map((c) => [c.cmd, c.params?.channels, c.params?.market_tickers])).toEqual([
      ['subscribe', ['orderbook_delta'], ['A', 'B']],
      ['subscribe', ['market_lifecycle_v2'], undefined],
    ]);
    manager.handleSubscribed(subscribed(again[0].id, 'orderbook_delta', 11));
    expect(manager.subscriptionOfMarket('orderbook_delta', 'A')?.sid).toBe(11);
  });

  it('re-creates a subscription killed by a terminal error (25) and only that one', async () => {
    const { manager, sink, lost, errors } = harness({ maxMarketsPerSubscription: 1 });
    manager.addMarkets('orderbook_delta', ['A', 'B']);
    await settle();
    const [a, b] = sink.take();
    manager.handleSubscribed(subscribed(a.id, 'orderbook_delta', 4));
    manager.handleSubscribed(subscribed(b.id, 'orderbook_delta', 5));
    manager.handleError(errorReply(25, { sid: 4, message: 'Subscription buffer overflow' }));
    expect(errors).toEqual([{ kind: null, code: 25 }]);
    expect(lost).toEqual([{ channel: 'orderbook_delta', sid: 4, reason: LostReason.TERMINAL }]);
    await settle();
    const resent = sink.take();
    expect(resent).toEqual([{ id: 3, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: ['A'] } }]);
    expect(manager.subscriptionOfSid(5)?.state).toBe(SubscriptionState.ACTIVE);
  });

  it('does not retry a subscribe refused with a client error, retries a transient one', async () => {
    const { manager, sink, clock } = harness({ retryDelayMs: 100 });
    manager.addChannel('order_group_updates');
    manager.addMarkets('fill', ['F']);
    await settle();
    const [groups, fills] = sink.take();
    manager.handleError(errorReply(9, { id: groups.id, message: 'Authentication required' }));
    manager.handleError(errorReply(18, { id: fills.id, message: 'Command timeout' }));
    expect(manager.subscriptions('order_group_updates')[0].state).toBe(SubscriptionState.FAILED);
    clock.advance(50);
    manager.onTick(clock.ms);
    expect(sink.take()).toEqual([]);
    clock.advance(60);
    manager.onTick(clock.ms);
    expect(sink.take().map((c) => c.params?.channels)).toEqual([['fill']]);
  });

  it('retries a subscribe that timed out and unsubscribes the late reply to the old one', async () => {
    const { manager, sink, clock } = harness({ commandTimeoutMs: 1_000, retryDelayMs: 10 });
    manager.addMarkets('orderbook_delta', ['A']);
    await settle();
    const [first] = sink.take();
    clock.advance(1_000);
    manager.onTick(clock.ms);
    expect(manager.pendingCommandCount).toBe(0);
    clock.advance(10);
    manager.onTick(clock.ms);
    const [second] = sink.take();
    expect(second.cmd).toBe('subscribe');
    expect(second.id).toBeGreaterThan(first.id);
    manager.handleSubscribed(subscribed(first.id, 'orderbook_delta', 3)); // late
    manager.handleSubscribed(subscribed(second.id, 'orderbook_delta', 4));
    await settle();
    expect(sink.take()).toEqual([{ id: second.id + 1, cmd: 'unsubscribe', params: { sids: [3] } }]);
    expect(manager.subscriptionOfMarket('orderbook_delta', 'A')?.sid).toBe(4);
  });

  it('batches get_snapshot requests per sid and skips markets not yet live', async () => {
    const { manager, sink } = harness({ maxMarketsPerCommand: 2 });
    manager.addMarkets('orderbook_delta', ['A', 'B', 'C']);
    await settle();
    const [subscribe] = sink.take();
    expect(manager.requestSnapshots('orderbook_delta', ['A'])).toBe(0); // not active yet
    manager.handleSubscribed(subscribed(subscribe.id, 'orderbook_delta', 9));
    await settle();
    sink.take(); // add_markets C
    expect(manager.requestSnapshots('orderbook_delta', ['A', 'B', 'C', 'unknown'])).toBe(3);
    await settle();
    const sent = sink.take();
    expect(sent.map((c) => c.params)).toEqual([
      { sids: [9], market_tickers: ['A', 'B'], action: 'get_snapshot' },
      { sids: [9], market_tickers: ['C'], action: 'get_snapshot' },
    ]);
  });

  it('removes markets with delete_markets and unsubscribes an emptied subscription', async () => {
    const { manager, sink, lost } = harness();
    manager.addMarkets('orderbook_delta', ['A', 'B']);
    await settle();
    manager.handleSubscribed(subscribed(sink.take()[0].id, 'orderbook_delta', 2));
    manager.removeMarkets('orderbook_delta', ['A']);
    await settle();
    expect(sink.take().map((c) => c.params)).toEqual([{ sids: [2], market_tickers: ['A'], action: 'delete_markets' }]);
    manager.removeMarkets('orderbook_delta', ['B']);
    await settle();
    const [unsubscribe] = sink.take();
    expect(unsubscribe).toMatchObject({ cmd: 'unsubscribe', params: { sids: [2] } });
    manager.handleUnsubscribed(unsubscribedReply(unsubscribe.id, 2));
    expect(lost).toEqual([{ channel: 'orderbook_delta', sid: 2, reason: LostReason.UNSUBSCRIBED }]);
    expect(manager.subscriptions('orderbook_delta')).toHaveLength(0);
    expect(manager.subscriptionOfSid(2)).toBeUndefined();
  });

  it('answers list_subscriptions through its callback', async () => {
    const { manager, sink } = harness();
    const result = new Promise<unknown>((resolve, reject) => manager.listSubscriptions((error, list) => (error ? reject(error) : resolve(list))));
    await settle();
    const [list] = sink.take() as SentCommand[];
    expect(list).toEqual({ id: 1, cmd: 'list_subscriptions' });
    const reply = ok(1);
    reply.subscriptions = [{ channel: 'orderbook_delta', sid: 4 }];
    manager.handleOk(reply);
    await expect(result).resolves.toEqual([{ channel: 'orderbook_delta', sid: 4 }]);
  });

  it('re-creates a subscription whose sid the server no longer knows (error 7 on get_snapshot)', async () => {
    const { manager, sink, lost } = harness();
    manager.addMarkets('orderbook_delta', ['A']);
    await settle();
    manager.handleSubscribed(subscribed(sink.take()[0].id, 'orderbook_delta', 6));
    manager.requestSnapshots('orderbook_delta', ['A']);
    await settle();
    const [snapshot] = sink.take();
    manager.handleError(errorReply(7, { id: snapshot.id }));
    expect(lost).toEqual([{ channel: 'orderbook_delta', sid: 6, reason: LostReason.UNKNOWN_SID }]);
    await settle();
    expect(sink.take().map((c) => c.cmd)).toEqual(['subscribe']);
  });
});
