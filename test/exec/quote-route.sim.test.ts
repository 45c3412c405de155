// Goal: RestQuoteRoute's create, now presigned and written on a raw HTTP/1.1 socket before create()
// returns, keeps the answers it had on undici, against the real simulator over sockets: a quote on
// an open RFQ arrives at the venue and is acked with its id (the signature taken from the REST
// route's presigner ring for POST /communications/quotes, registered with presign.extraEndpoints);
// a quote the venue refuses (an RFQ it does not know) is rejected with the venue's code and
// status; a connection dropped before the answer (rest_close) leaves the fate unknown
// (EXEC_DISCONNECTED) and the next create goes out on a reopened socket; a 5xx is unknown; without a
// ring for the path it signs inline and still quotes; after close() a create is unknown, reported
// after create() returned. Cancel and confirm stay on undici (test/integration/rfq-quoting.test.ts).
// Method: startSim in-process on 127.0.0.1:0 (tests may, DESIGN.md), a requester user who creates
// RFQs, a liquidity user's 0.45 / 0.55 book; the route reaches the simulator only over sockets.
// Waits poll the recorded answers with bounded loops; no timing assertions.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Price } from '../../src/core/index.ts';
import {
  REST_ORDER_ENTRY_DEFAULTS, REST_QUOTE_ROUTE_DEFAULTS, RestOrderEntry, RestQuoteRoute, type RestQuoteRouteOptions,
} from '../../src/exec/index.ts';
import type { QuoteListener, QuoteRequest } from '../../src/oms/index.ts';
import { MARKET, counterpartyKey, orderBody, rest, startTestSim, waitUntil, type ApiKey, type TestSim } from '../integration/helpers.ts';

type Answer = ['ack', number, string] | ['reject', number, string, number] | ['unknown', number, string];

class Answers implements QuoteListener {
  readonly created: Answer[] = [];
  readonly other: string[] = [];
  onQuoteCreateAck(handle: number, quoteId: string): void { this.created.push(['ack', handle, quoteId]); }
  onQuoteCreateReject(handle: number, code: string, status: number): void { this.created.push(['reject', handle, code, status]); }
  onQuoteCreateUnknown(handle: number, code: string): void { this.created.push(['unknown', handle, code]); }
  onQuoteCancelAck(handle: number): void { this.other.push(`cancelAck ${handle}`); }
  onQuoteCancelReject(handle: number, code: string): void { this.other.push(`cancelReject ${handle} ${code}`); }
  onQuoteConfirmAck(handle: number): void { this.other.push(`confirmAck ${handle}`); }
  onQuoteConfirmReject(handle: number, code: string): void { this.other.push(`confirmReject ${handle} ${code}`); }

  async answer(handle: number): Promise<Answer> {
    await waitUntil(() => this.created.some((answer) => answer[1] === handle), 5_000, `the answer to quote ${handle}`);
    return this.created.find((answer) => answer[1] === handle)!;
  }
}

let sim: TestSim;
let maker: ApiKey;
let requester: ApiKey;
let entry: RestOrderEntry;
let handleSeq = 1;

beforeAll(async () => {
  sim = await startTestSim();
  const liquidity = counterpartyKey(sim, 'quote-route-liquidity');
  requester = counterpartyKey(sim, 'quote-route-requester');
  maker = counterpartyKey(sim, 'quote-route-maker');
  for (const [side, price] of [['bid', '0.4500'], ['ask', '0.5500']] as const) {
    const placed = await rest(sim, liquidity, 'POST', '/portfolio/events/orders', orderBody(side, price, '50.00'));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  }
  entry = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: maker.keyId, privateKey: maker.privateKey, clock: systemClock,
    connections: 1, keepAliveIntervalMs: 0,
    presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 2, batchCapacity: 1, orderCapacity: 0, extraEndpoints: [RestQuoteRoute.presignEndpoint] },
  });
  await entry.connect();
}, 30_000);

afterAll(async () => {
  await entry?.close();
  await sim?.close();
});

function route(overrides: Partial<RestQuoteRouteOptions> = {}): RestQuoteRoute {
  return new RestQuoteRoute({
    ...REST_QUOTE_ROUTE_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: maker.keyId, privateKey: maker.privateKey, clock: systemClock,
    headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, keepWarmIntervalMs: 0, presigner: () => entry.presigner, ...overrides,
  });
}

async function createRfq(): Promise<string> {
  const created = await rest(sim, requester, 'POST', '/communications/rfqs', { market_ticker: MARKET, contracts_fp: '10.00', rest_remainder: false });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

function quoteOn(rfqId: string): QuoteRequest {
  return { handle: handleSeq++, quoteId: '', rfqId, ticker: MARKET, yesBid: 4800 as Price, noBid: 4800 as Price, postOnly: true, subaccount: 0 };
}

describe('RestQuoteRoute.create on the raw socket against the simulator', () => {
  it('writes a presigned create before returning; the quote reaches the venue and is acked with its id', async () => {
    const quotes = route();
    const answers = new Answers();
    quotes.setListener(answers);
    await quotes.connect();
    try {
      const rfqId = await createRfq();
      const quote = quoteOn(rfqId);
      const writtenBefore = quotes.rawStats.written;
      const takenBefore = entry.presigner!.stats.taken;
      quotes.create(quote);
      // Synchronous: the bytes are on the socket and the signature came from the ring when create() returns.
      expect(quotes.rawStats.written).toBe(writtenBefore + 1);
      expect(entry.presigner!.stats.taken).toBe(takenBefore + 1);
      expect(answers.created).toEqual([]);
      const answer = await answers.answer(quote.handle);
      expect(answer[0]).toBe('ack');
      const quoteId = (answer as ['ack', number, string])[2];
      expect(quoteId).not.toBe('');
      expect(quotes.stats).toMatchObject({ creates: 1, presigned: 1, inlineSigned: 0, presignFallbacks: 0, acks: 1, rejects: 0, unknowns: 0 });
      // The venue has it, at our prices, on the RFQ.
      const listed = await quotes.listQuotes();
      const venue = listed.find((wire) => wire.quoteId === quoteId);
      expect(venue).toMatchObject({ rfqId, status: 'open', yesBid: 4800, noBid: 4800 });
    } finally {
      await quotes.close();
    }
  });

  it('a quote the venue refuses is rejected with its code and status (nothing applied)', async () => {
    const quotes = route();
    const answers = new Answers();
    quotes.setListener(answers);
    await quotes.connect();
    try {
      const quote = quoteOn('00000000-0000-4000-8000-00000000dead');
      quotes.create(quote);
      const answer = await answers.answer(quote.handle);
      expect(answer[0]).toBe('reject');
      const [, , code, status] = answer as ['reject', number, string, number];
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
      expect(code).not.toBe('');
      expect(quotes.stats).toMatchObject({ rejects: 1, acks: 0, unknowns: 0 });
    } finally {
      await quotes.close();
    }
  });

  it('a connection dropped before the answer leaves the create unknown; the next create goes out on a reopened socket', async () => {
    const quotes = route({ createConnections: 1 });
    const answers = new Answers();
    quotes.setListener(answers);
    await quotes.connect();
    try {
      const rfqId = await createRfq();
      const rule = sim.faults.add({ kind: 'rest_close', target: { times: 1, method: 'POST', path: '/communications/quotes' } });
      const dropped = quoteOn(rfqId);
      quotes.create(dropped);
      expect(await answers.answer(dropped.handle)).toEqual(['unknown', dropped.handle, 'EXEC_DISCONNECTED']);
      sim.faults.remove(rule);
      expect(quotes.rawStats.disconnects).toBe(1);
      await waitUntil(() => quotes.rawStats.connects >= 2, 5_000, 'the raw socket reopened');
      const next = quoteOn(await createRfq());
      quotes.create(next);
      expect((await answers.answer(next.handle))[0]).toBe('ack');
    } finally {
      await quotes.close();
    }
  });

  it('a 5xx answer is unknown (EXEC_HTTP_5XX), never a reject', async () => {
    const quotes = route();
    const answers = new Answers();
    quotes.setListener(answers);
    await quotes.connect();
    try {
      const rfqId = await createRfq();
      const rule = sim.faults.add({ kind: 'rest_error', target: { times: 1, method: 'POST', path: '/communications/quotes' } });
      const quote = quoteOn(rfqId);
      quotes.create(quote);
      expect(await answers.answer(quote.handle)).toEqual(['unknown', quote.handle, 'EXEC_HTTP_5XX']);
      sim.faults.remove(rule);
    } finally {
      await quotes.close();
    }
  });

  it('without a ring for the path (or without a presigner) it signs inline, counted, and still quotes', async () => {
    const bare = new RestOrderEntry({
      ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: maker.keyId, privateKey: maker.privateKey, clock: systemClock,
      connections: 1, keepAliveIntervalMs: 0, presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 1, batchCapacity: 1, orderCapacity: 0 },
    });
    await bare.connect();
    const noRing = route({ presigner: () => bare.presigner });
    const inline = route({ presigner: undefined });
    const answers = new Answers();
    noRing.setListener(answers);
    inline.setListener(answers);
    try {
      await noRing.connect();
      await inline.connect();
      const first = quoteOn(await createRfq());
      noRing.create(first);
      const second = quoteOn(await createRfq());
      inline.create(second);
      expect((await answers.answer(first.handle))[0]).toBe('ack');
      expect((await answers.answer(second.handle))[0]).toBe('ack');
      expect(noRing.stats).toMatchObject({ presigned: 0, inlineSigned: 1, presignFallbacks: 1 });
      expect(inline.stats).toMatchObject({ presigned: 0, inlineSigned: 1, presignFallbacks: 0 });
    } finally {
      await noRing.close();
      await inline.close();
      await bare.close();
    }
  });

  it('after close() a create is unknown (EXEC_DISCONNECTED), reported after create() returned', async () => {
    const quotes = route();
    const answers = new Answers();
    quotes.setListener(answers);
    await quotes.connect();
    await quotes.close();
    const quote = quoteOn('00000000-0000-4000-8000-00000000beef');
    quotes.create(quote);
    expect(answers.created).toEqual([]);
    expect(await answers.answer(quote.handle)).toEqual(['unknown', quote.handle, 'EXEC_DISCONNECTED']);
  });

  it('the REST route registers extra presigned endpoints under its prefix and refuses malformed ones', () => {
    expect(entry.presigner!.endpointIndex('POST', '/trade-api/v2/communications/quotes')).toBeGreaterThanOrEqual(0);
    expect(() => new RestOrderEntry({
      ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: maker.keyId, privateKey: maker.privateKey, clock: systemClock,
      presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, extraEndpoints: [{ method: 'post', path: 'communications/quotes?x=1', capacity: 0 }] },
    })).toThrow(/extraEndpoints/);
  });
});
