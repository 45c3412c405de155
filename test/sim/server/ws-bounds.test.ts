// Goal: one WebSocket client cannot take the simulator down for everyone. The bounds of
// src/sim/server/ws/protocol.ts answer with their documented errors and change nothing: a channel
// repeated in one subscribe is subscribed once; more than 2,500 markets in a command or 10,000 in a
// subscription, more than 1,000 subscriptions or 500,000 other-channel markets in a session, more
// than 4 subscriptions of one channel covering a market are error 26; a ticker above 200 characters or more sids than a session can hold is error 11; a frame
// above 1 MiB ends the connection unread. Commands run in time slices: another session is answered
// while a large subscribe is still sending snapshots, and each market's snapshot still precedes its
// deltas; unknown tickers stay out of the indexes until their market is created. Unmasked client frames: RFC 6455 §5.1 says close with 1002; uWS does not check the MASK
// bit, which the last two tests record (the RFC expectation is an `it.fails`).
// Method: in-process simulators on 127.0.0.1 port 0, raw-socket clients (frame-client.ts) and undici
// WebSockets; every wait is bounded; nothing is timed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSimError } from '../../../src/sim/engine/index.ts';
import { RestClient, WsClient } from '../helpers/clients.ts';
import { FrameClient } from '../helpers/frame-client.ts';
import { uwsFlavor } from '../../../src/net/uws.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';

const LIMIT_26 = { code: 26, msg: 'Subscription market limit exceeded' };
const INVALID_11 = { code: 11, msg: 'Invalid parameter' };
const notSnapshot = (text: string): boolean => !text.startsWith('{"type":"orderbook_snapshot"');

let sim: Awaited<ReturnType<typeof startTestSim>>;

beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await sim.close();
});

function tickers(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
}

describe('subscribe bounds', () => {
  it('a channel repeated 20,000 times in one subscribe is subscribed once', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const id = ws.send('subscribe', { channels: Array(20_000).fill('orderbook_delta'), market_ticker: MARKET });
      const subscribed = await ws.waitFor((m) => m.id === id && m.type === 'subscribed');
      await ws.waitFor((m) => m.type === 'orderbook_snapshot' && m.sid === subscribed.msg.sid);
      const listId = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === listId)).msg).toEqual([{ channel: 'orderbook_delta', sid: subscribed.msg.sid }]);
      expect(ws.messages.filter((m) => m.id === id)).toHaveLength(1);
      expect(ws.messages.filter((m) => m.type === 'orderbook_snapshot')).toHaveLength(1);
    } finally {
      ws.close();
    }
  });

  it('repeated channels among others: one sid per distinct channel, in first-seen order', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const id = ws.send('subscribe', { channels: ['trade', 'ticker', 'trade', 'fill', 'ticker'] });
      const replies = await ws.waitForCount((m) => m.id === id, 3);
      expect(replies.map((m) => m.msg.channel)).toEqual(['trade', 'ticker', 'fill']);
      const listId = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === listId)).msg).toHaveLength(3);
    } finally {
      ws.close();
    }
  });

  it('more than 2,500 market tickers in one command: error 26 on every command that takes them', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const tooMany = tickers('KXBOUND', 2_501);
      const subscribeId = ws.send('subscribe', { channels: ['orderbook_delta'], market_tickers: tooMany });
      expect(await ws.waitFor((m) => m.id === subscribeId)).toEqual({ id: subscribeId, type: 'error', msg: LIMIT_26 });
      const [subscribed] = await ws.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET });
      const sid = subscribed.msg.sid;
      for (const action of ['add_markets', 'delete_markets', 'get_snapshot']) {
        const id = ws.send('update_subscription', { sid, action, market_tickers: tooMany });
        expect(await ws.waitFor((m) => m.id === id)).toEqual({ id, type: 'error', msg: LIMIT_26 });
      }
      const listId = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === listId)).msg).toEqual([{ channel: 'orderbook_delta', sid }]);
    } finally {
      ws.close();
    }
  });

  it('a ticker of 201 characters is error 11; 200 characters are accepted', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const long = ws.send('subscribe', { channels: ['orderbook_delta'], market_ticker: 'K'.repeat(201) });
      expect(await ws.waitFor((m) => m.id === long)).toEqual({ id: long, type: 'error', msg: INVALID_11 });
      const inList = ws.send('subscribe', { channels: ['ticker'], market_tickers: [MARKET, 'K'.repeat(201)] });
      expect(await ws.waitFor((m) => m.id === inList)).toEqual({ id: inList, type: 'error', msg: INVALID_11 });
      const fits = ws.send('subscribe', { channels: ['orderbook_delta'], market_ticker: 'K'.repeat(200) });
      expect((await ws.waitFor((m) => m.id === fits)).type).toBe('subscribed');
    } finally {
      ws.close();
    }
  });

  it('a subscription holds at most 10,000 markets: add_markets past it is error 26 and changes nothing', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const full = tickers('KXFULL', 10_000);
      const [subscribed] = await ws.subscribe({ channels: ['ticker'], market_tickers: full.slice(0, 2_500) });
      const sid = subscribed.msg.sid;
      for (let from = 2_500; from < 10_000; from += 2_500) {
        const grow = ws.send('update_subscription', { sid, action: 'add_markets', market_tickers: full.slice(from, from + 2_500) });
        expect((await ws.waitFor((m) => m.id === grow)).type).toBe('ok');
      }
      const over = ws.send('update_subscription', { sid, action: 'add_markets', market_tickers: ['KXFULL-NEW'] });
      expect(await ws.waitFor((m) => m.id === over)).toEqual({ id: over, type: 'error', msg: LIMIT_26 });
      // Adding what is already there changes nothing and is fine; the ok lists the 10,000.
      const same = ws.send('update_subscription', { sid, action: 'add_markets', market_tickers: [full[0]] });
      const ok = await ws.waitFor((m) => m.id === same);
      expect(ok.type).toBe('ok');
      expect(ok.msg.market_tickers).toHaveLength(10_000);
      expect(ok.msg.market_tickers).not.toContain('KXFULL-NEW');
    } finally {
      ws.close();
    }
  });

  it('1,000 subscriptions per session: the next subscribe is error 26, all or nothing', async () => {
    const ws = await FrameClient.open(sim.port, sim.demoKey);
    try {
      // One market each, so the per-market coverage limit (4) is not what stops them.
      for (let i = 0; i < 999; i++) ws.send('subscribe', { channels: ['trade'], market_ticker: `KXSUB-${i}` });
      const twoMore = ws.send('subscribe', { channels: ['trade', 'fill'] });
      expect(await ws.waitFor((m) => m.id === twoMore, 10_000)).toEqual({ id: twoMore, type: 'error', msg: LIMIT_26 });
      const last = ws.send('subscribe', { channels: ['fill'] });
      expect((await ws.waitFor((m) => m.id === last)).type).toBe('subscribed');
      const overId = ws.send('subscribe', { channels: ['ticker'] });
      expect(await ws.waitFor((m) => m.id === overId)).toEqual({ id: overId, type: 'error', msg: LIMIT_26 });
      const listId = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === listId)).msg).toHaveLength(1000);
      // More sids than a session can hold cannot all be live: error 11, nothing unsubscribed.
      const sids = Array.from({ length: 1001 }, (_, i) => i + 1);
      const unsubscribeId = ws.send('unsubscribe', { sids });
      expect(await ws.waitFor((m) => m.id === unsubscribeId)).toEqual({ id: unsubscribeId, type: 'error', msg: INVALID_11 });
      // After unsubscribing one, there is room for one again.
      const one = ws.send('unsubscribe', { sids: [1] });
      expect((await ws.waitFor((m) => m.id === one)).type).toBe('unsubscribed');
      const again = ws.send('subscribe', { channels: ['trade'] });
      expect((await ws.waitFor((m) => m.id === again)).type).toBe('subscribed');
    } finally {
      ws.close();
    }
  });

  it('at most 4 subscriptions of a channel cover a market: the 5th is error 26, filtered or not', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const sids: number[] = [];
      for (let i = 0; i < 4; i++) {
        const [subscribed] = await ws.subscribe({ channels: ['orderbook_delta'], market_tickers: [MARKET, `KXCOVER-${i}`] });
        expect(subscribed.type).toBe('subscribed');
        sids.push(subscribed.msg.sid);
      }
      const fifth = ws.send('subscribe', { channels: ['orderbook_delta'], market_ticker: MARKET });
      expect(await ws.waitFor((m) => m.id === fifth)).toEqual({ id: fifth, type: 'error', msg: LIMIT_26 });
      // add_markets onto a fifth subscription is refused the same way; other markets are fine.
      const [other] = await ws.subscribe({ channels: ['orderbook_delta'], market_ticker: 'KXCOVER-OTHER' });
      const add = ws.send('update_subscription', { sid: other.msg.sid, action: 'add_markets', market_tickers: [MARKET] });
      expect(await ws.waitFor((m) => m.id === add)).toEqual({ id: add, type: 'error', msg: LIMIT_26 });
      // One gone, room for one again.
      const unsubscribe = ws.send('unsubscribe', { sids: [sids[0]] });
      await ws.waitFor((m) => m.id === unsubscribe);
      const again = ws.send('update_subscription', { sid: other.msg.sid, action: 'add_markets', market_tickers: [MARKET] });
      expect((await ws.waitFor((m) => m.id === again)).type).toBe('ok');
      // Without a market filter a subscription covers every market.
      for (let i = 0; i < 4; i++) expect((await ws.subscribe({ channels: ['trade'] }))[0].type).toBe('subscribed');
      const allFifth = ws.send('subscribe', { channels: ['trade'] });
      expect(await ws.waitFor((m) => m.id === allFifth)).toEqual({ id: allFifth, type: 'error', msg: LIMIT_26 });
      const filtered = ws.send('subscribe', { channels: ['trade'], market_ticker: MARKET });
      expect(await ws.waitFor((m) => m.id === filtered)).toEqual({ id: filtered, type: 'error', msg: LIMIT_26 });
    } finally {
      ws.close();
    }
  });

  it('500,000 markets on the other market channels per session, then error 26', async () => {
    const ws = await FrameClient.open(sim.port, sim.demoKey);
    try {
      for (let sub = 0; sub < 200; sub++) ws.send('subscribe', { channels: ['ticker'], market_tickers: tickers(`KXOTHER-${sub}`, 2_500) });
      const id = ws.send('subscribe', { channels: ['trade'], market_ticker: 'KXOTHER-ONE-MORE' });
      expect(await ws.waitFor((m) => m.id === id, 30_000)).toEqual({ id, type: 'error', msg: LIMIT_26 });
      expect(ws.messages.filter((m) => m.type === 'subscribed')).toHaveLength(200);
      // Subscriptions without a market filter take no market budget.
      const all = ws.send('subscribe', { channels: ['trade'] });
      expect((await ws.waitFor((m) => m.id === all)).type).toBe('subscribed');
    } finally {
      ws.close();
    }
  }, 40_000);
});

describe('frames', () => {
  it('a frame of 1 MiB is read; one byte more ends the connection, unread', async () => {
    const ws = await FrameClient.open(sim.port, sim.demoKey);
    try {
      const command = '{"id":7,"cmd":"list_subscriptions"}';
      ws.sendText(command + ' '.repeat(1024 * 1024 - command.length)); // JSON allows trailing spaces
      expect((await ws.waitFor((m) => m.id === 7)).type).toBe('ok');
      ws.sendText(command + ' '.repeat(1024 * 1024 + 1 - command.length));
      expect(await ws.endsWithin(5000)).toBe(true);
      // uWS drops the socket (its close handler gets 1006 "Received too big message"); a close
      // frame, if a later uWS sends one, must say 1009 (RFC 6455 §7.4.1).
      expect(ws.closeFrame === null || ws.closeFrame.code === 1009).toBe(true);
    } finally {
      ws.close();
    }
  });

  // RFC 6455 §5.1: "The server MUST close the connection upon receiving a frame that is not masked"
  // (status 1002, §7.4.1). uWebSockets.js does not look at the MASK bit and its API never exposes
  // it, so this fails on native uWS today. If a uWS upgrade starts honouring §5.1, this turns red:
  // make it `it` and delete the next test. The node:http + ws fallback (src/net/uws-fallback.ts)
  // honours §5.1 (ws checks the MASK bit), so there it passes.
  const onNativeUws = uwsFlavor() === 'native';
  (onNativeUws ? it.fails : it)('RFC 6455 §5.1: an unmasked client frame closes the connection with 1002', async () => {
    const ws = await FrameClient.open(sim.port, sim.demoKey);
    try {
      ws.write(FrameClient.frame(0x1, Buffer.from('{"id":1,"cmd":"list_subscriptions"}'), false));
      expect(await ws.endsWithin(1500)).toBe(true);
      expect(ws.closeFrame?.code).toBe(1002);
    } finally {
      ws.close();
    }
  });

  it('uWS reads an unmasked frame as if its first four payload bytes were a masking key (the gap above)', async () => {
    const ws = await FrameClient.open(sim.port, sim.demoKey);
    try {
      if (!onNativeUws) {
        // The fallback has no gap: the same bytes end the connection with 1002 (the test above).
        const command = Buffer.from('{"id":1,"cmd":"list_subscriptions"}');
        ws.write(Buffer.concat([Buffer.from([0x81, command.length]), Buffer.alloc(4), command]));
        expect(await ws.endsWithin(2000)).toBe(true);
        expect(ws.closeFrame?.code).toBe(1002);
        return;
      }
      // MASK bit clear, length 35, then four zero bytes and the 35-byte command: a server that
      // ignores the MASK bit takes the zeros as the key and reads the command intact.
      const command = Buffer.from('{"id":1,"cmd":"list_subscriptions"}');
      ws.write(Buffer.concat([Buffer.from([0x81, command.length]), Buffer.alloc(4), command]));
      expect(await ws.waitFor((m) => m.id === 1, 2000)).toEqual({ id: 1, type: 'ok', msg: [] });
      ws.sendText('{"id":2,"cmd":"list_subscriptions"}'); // a masked frame after it: the stream is still in step
      expect((await ws.waitFor((m) => m.id === 2, 2000)).type).toBe('ok');
      expect(ws.isEnded).toBe(false);
    } finally {
      ws.close();
    }
  });
});

describe('work in slices', () => {
  it('another session is answered while 100,000 snapshots of one large subscribe are still going out', async () => {
    const big = await FrameClient.open(sim.port, sim.demoKey, notSnapshot);
    const other = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      for (let sub = 0; sub < 40; sub++) big.send('subscribe', { channels: ['orderbook_delta'], market_tickers: tickers(`KXSLICE-${sub}`, 2_500) });
      await big.waitFor((m) => m.type === 'subscribed', 10_000);
      const id = other.send('list_subscriptions');
      await other.waitFor((m) => m.id === id, 10_000);
      const snapshotsSoFar = big.textFrames - big.messages.length;
      expect(snapshotsSoFar).toBeLessThan(100_000);
      const listId = big.send('list_subscriptions');
      expect((await big.waitFor((m) => m.id === listId, 30_000)).msg).toHaveLength(40);
      expect(big.textFrames - big.messages.length).toBe(100_000);
    } finally {
      big.close();
      other.close();
    }
  }, 40_000);

  it('an unknown ticker stays out of the indexes until its market is created, then gets its deltas', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    const rest = new RestClient(sim.httpUrl, sim.demoKey);
    try {
      const ticker = 'KXDEMO-26DEC31-T97';
      const [subscribed] = await ws.subscribe({ channels: ['orderbook_delta'], market_tickers: [ticker] });
      const snapshot = await ws.waitFor((m) => m.type === 'orderbook_snapshot' && m.sid === subscribed.msg.sid);
      expect(snapshot.msg).toEqual({ market_ticker: ticker, market_id: '00000000-0000-0000-0000-000000000000' });
      const model = sim.engine.getMarket(MARKET)!.spec;
      expect(sim.engine.addMarket({ ...model, ticker, marketId: '7f1c2a9e-0b7d-4c55-9e1a-3d2f6b8c9a97' })).toBeNull();
      expect((await rest.post('/portfolio/events/orders', order({ ticker, price: '0.30' }))).status).toBe(201);
      const delta = await ws.waitFor((m) => m.type === 'orderbook_delta' && m.sid === subscribed.msg.sid);
      expect(delta.msg.market_ticker).toBe(ticker);
    } finally {
      ws.close();
    }
  });

  it('each market snapshot precedes its deltas when snapshots go out in slices', async () => {
    const busy = await startTestSim({ activity: { updatesPerSec: 4000 }, seed: 11 });
    const ws = await FrameClient.open(busy.port, busy.demoKey);
    const rest = new RestClient(busy.httpUrl, busy.demoKey);
    try {
      const page = busy.engine.listMarkets({ limit: 1000 });
      if (isSimError(page)) throw new Error(page.message);
      const real = page.items.map((market) => market.ticker);
      // 2,000 unknown markets first, then 3 x 2,000 more, so the real ones' snapshots come slices later.
      const id = ws.send('subscribe', { channels: ['orderbook_delta'], market_tickers: tickers('KXFILLER', 2_000) });
      const subscribed = await ws.waitFor((m) => m.id === id);
      for (let part = 1; part < 4; part++) {
        ws.send('update_subscription', { sid: subscribed.msg.sid, action: 'add_markets', market_tickers: tickers(`KXFILLER-${part}`, 2_000) });
      }
      ws.send('update_subscription', { sid: subscribed.msg.sid, action: 'add_markets', market_tickers: real });
      const listId = ws.send('list_subscriptions'); // answered once every snapshot is out
      await ws.waitFor((m) => m.id === listId, 20_000);
      expect((await rest.post('/portfolio/events/orders', order({ price: '0.30' }))).status).toBe(201);
      await ws.waitFor((m) => m.type === 'orderbook_delta' && m.msg.market_ticker === MARKET && m.msg.client_order_id !== undefined, 10_000);
      const stream = ws.messages.filter((m) => m.sid === subscribed.msg.sid);
      expect(stream.filter((m) => m.type === 'orderbook_snapshot')).toHaveLength(8_000 + real.length);
      expect(stream.map((m) => m.seq)).toEqual(stream.map((_, i) => i + 1));
      const snapshotted = new Set<string>();
      for (const message of stream) {
        if (message.type === 'orderbook_snapshot') snapshotted.add(message.msg.market_ticker);
        else if (message.type === 'orderbook_delta') expect(snapshotted.has(message.msg.market_ticker)).toBe(true);
      }
      expect(stream.some((m) => m.type === 'orderbook_delta' && m.msg.market_ticker === MARKET)).toBe(true);
    } finally {
      ws.close();
      await busy.close();
    }
  }, 40_000);
});
