// Goal: FixQuoteRoute speaks the maker's side of fix.md §7 to the simulator's KalshiRFQ session and
// reports each outcome on the quote book's port: an RFQ created over REST arrives as onRfq
// (created, the requester's public id, contracts in 1/100); a quote is acked with the venue's id
// and is open at the venue; the requester's accept arrives as onQuote accepted with the side; a
// confirm is acked and the execution arrives once as onQuote executed with our order; a cancel
// is acked and the quote is gone at the venue; a quote on an unknown RFQ is rejected with the
// venue's text; races: a confirm of a quote nobody accepted is rejected, a cancel racing the
// requester's accept leaves the route and the venue agreeing; a closed RFQ arrives as onRfq
// deleted; requests while the session is down are "not sent" (status 0, a microtask later); a
// dropped connection turns a create in flight into an unknown and the route logs on again.
// Method: startSim in-process with FIX on (plain TCP, port 0 per session kind); the requester is
// the demo key over signed REST, the maker a second user's key over our route. Waits are bounded polls.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock, type Price } from '../../src/core/index.ts';
import { FIX_QUOTE_ROUTE_DEFAULTS, FixQuoteRoute, type RfqEventListener } from '../../src/exec/index.ts';
import type { QuoteListener, QuoteMessageInput, QuoteRequest, RfqInput, WireQuote } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { RestClient } from '../sim/helpers/clients.ts';

const MARKET = 'KXDEMO-26DEC31-T50';
const MAKER_USER = 'c0ffee00-0000-4000-8000-00000000f15e';

/** Everything the route told us, in order. */
class Recorder implements QuoteListener, RfqEventListener {
  readonly events: string[] = [];
  readonly rfqs: RfqInput[] = [];
  readonly quotes: QuoteMessageInput[] = [];
  readonly acks = new Map<number, string>();
  onQuoteCreateAck(handle: number, quoteId: string): void {
    this.acks.set(handle, quoteId);
    this.events.push(`create-ack ${handle}`);
  }
  onQuoteCreateReject(handle: number, code: string, status: number): void {
    this.events.push(`create-reject ${handle} ${code} ${status}`);
  }
  onQuoteCreateUnknown(handle: number, code: string): void {
    this.events.push(`create-unknown ${handle} ${code}`);
  }
  onQuoteCancelAck(handle: number): void {
    this.events.push(`cancel-ack ${handle}`);
  }
  onQuoteCancelReject(handle: number, code: string, status: number): void {
    this.events.push(`cancel-reject ${handle} ${code} ${status}`);
  }
  onQuoteConfirmAck(handle: number): void {
    this.events.push(`confirm-ack ${handle}`);
  }
  onQuoteConfirmReject(handle: number, code: string, status: number): void {
    this.events.push(`confirm-reject ${handle} ${code} ${status}`);
  }
  onRfq(record: RfqInput): void {
    this.rfqs.push({ ...record });
  }
  onQuote(record: QuoteMessageInput): void {
    this.quotes.push({ ...record });
  }
  has(prefix: string): boolean {
    return this.events.some((event) => event.startsWith(prefix));
  }
}

let sim: SimHandle;
let workDir: string;
let requester: RestClient;
let makerRest: RestClient;
let makerKey: { keyId: string; privateKeyPem: string };

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 2_000 && !predicate() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

function makeRoute(overrides: Partial<ConstructorParameters<typeof FixQuoteRoute>[0]> = {}): { route: FixQuoteRoute; seen: Recorder } {
  const route = new FixQuoteRoute({
    ...FIX_QUOTE_ROUTE_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiRFQ, tls: null, keyId: makerKey.keyId,
    privateKey: loadPrivateKey(makerKey.privateKeyPem), clock: systemClock, reconnectMinMs: 20,
    reads: { listQuotes: (): Promise<WireQuote[]> => Promise.resolve([]) }, ...overrides,
  });
  const seen = new Recorder();
  route.setListener(seen);
  route.setRfqListener(seen);
  return { route, seen };
}

function quote(handle: number, rfqId: string, quoteId = '', yesBid = 4000, noBid = 5500): QuoteRequest {
  return { handle, quoteId, rfqId, ticker: MARKET, yesBid: yesBid as Price, noBid: noBid as Price, postOnly: true, subaccount: 0 };
}

async function createRfq(contracts = '10'): Promise<string> {
  const created = await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: contracts, rest_remainder: false });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'fix-quote-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
  requester = new RestClient(sim.httpUrl, sim.demoKey);
  makerKey = sim.createApiKey({ scopes: ['read', 'write'], userId: MAKER_USER, tier: 'prime' });
  makerRest = new RestClient(sim.httpUrl, makerKey);
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('FixQuoteRoute against the simulator', () => {
  it('RFQ -> quote -> accepted -> confirmed -> executed, each reported once on the port', async () => {
    const { route, seen } = makeRoute();
    await route.connect();
    try {
      const requesterId = (await requester.get('/communications/id')).body.communications_id;
      const rfqId = await createRfq('10');
      await until(() => seen.rfqs.some((rfq) => rfq.id === rfqId), 'the RFQ over FIX');
      expect(seen.rfqs.find((rfq) => rfq.id === rfqId)).toMatchObject({ eventType: 'created', marketTicker: MARKET, contracts: 1000, creatorId: requesterId });

      route.create(quote(1, rfqId));
      await until(() => seen.acks.has(1), 'the create ack');
      const quoteId = seen.acks.get(1)!;
      const atVenue = await makerRest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      expect(atVenue.body.quote).toMatchObject({ status: 'open', post_only: true, yes_bid_dollars: '0.4000', no_bid_dollars: '0.5500' });

      const accepted = await requester.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'yes' });
      expect(accepted.status, accepted.text).toBe(204);
      await until(() => seen.quotes.some((q) => q.eventType === 'accepted'), 'the accept over FIX');
      expect(seen.quotes.find((q) => q.eventType === 'accepted')).toMatchObject({ quoteId, rfqId, acceptedSide: 'yes', subaccount: 0 });

      route.confirm(quote(1, rfqId, quoteId));
      await until(() => seen.has('confirm-ack 1') && seen.quotes.some((q) => q.eventType === 'executed'), 'confirm ack and execution');
      const executed = seen.quotes.filter((q) => q.eventType === 'executed');
      expect(executed).toHaveLength(1);
      expect(executed[0]).toMatchObject({ quoteId, rfqId });
      expect(executed[0]!.orderId).not.toBe('');
      const after = await makerRest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      expect(after.body.quote.status).toBe('executed');
      expect(seen.events).toEqual(['create-ack 1', 'confirm-ack 1']);
    } finally {
      await route.close();
    }
  });

  it('a cancel is acked and the quote is gone; a quote on an unknown RFQ is rejected with the venue text', async () => {
    const { route, seen } = makeRoute();
    await route.connect();
    try {
      const rfqId = await createRfq('5');
      await until(() => seen.rfqs.some((rfq) => rfq.id === rfqId), 'the RFQ');
      route.create(quote(2, rfqId));
      await until(() => seen.acks.has(2), 'the create ack');
      const quoteId = seen.acks.get(2)!;
      route.cancel(quote(2, rfqId, quoteId));
      await until(() => seen.has('cancel-ack 2'), 'the cancel ack');
      const atVenue = await makerRest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      expect(atVenue.status === 404 || atVenue.body.quote?.status === 'cancelled').toBe(true);

      route.create(quote(3, 'no-such-rfq'));
      await until(() => seen.has('create-reject 3'), 'the reject');
      expect(seen.events).toContain('create-reject 3 NOT_FOUND 0');
      await requester.delete(`/communications/rfqs/${rfqId}`);
    } finally {
      await route.close();
    }
  });

  it('races: confirming a quote nobody accepted is refused; a cancel racing the accept leaves route and venue agreeing', async () => {
    const { route, seen } = makeRoute();
    await route.connect();
    try {
      const rfqId = await createRfq('3');
      await until(() => seen.rfqs.some((rfq) => rfq.id === rfqId), 'the RFQ');
      route.create(quote(4, rfqId));
      await until(() => seen.acks.has(4), 'the create ack');
      const quoteId = seen.acks.get(4)!;
      route.confirm(quote(4, rfqId, quoteId));
      await until(() => seen.has('confirm-reject 4'), 'the confirm reject');

      // The requester accepts while the maker withdraws: one of them wins, and both sides say which.
      const accept = requester.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'no' });
      route.cancel(quote(4, rfqId, quoteId));
      const acceptAnswer = await accept;
      await until(() => seen.has('cancel-ack 4') || seen.has('cancel-reject 4'), 'the cancel answer');
      const venue = await makerRest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      const venueStatus: string = venue.status === 404 ? 'gone' : venue.body.quote.status;
      if (seen.has('cancel-ack 4')) {
        expect(acceptAnswer.status).not.toBe(204); // the withdrawal won: the accept was refused
        expect(['gone', 'cancelled']).toContain(venueStatus);
      } else {
        expect(acceptAnswer.status).toBe(204); // the accept won: the cancel was refused
        expect(venueStatus).toBe('accepted');
        await until(() => seen.quotes.some((q) => q.eventType === 'accepted' && q.quoteId === quoteId), 'the accept');
      }
      await requester.delete(`/communications/rfqs/${rfqId}`);
      await until(() => seen.rfqs.some((rfq) => rfq.id === rfqId && rfq.eventType === 'deleted'), 'the RFQ closed');
    } finally {
      await route.close();
    }
  });

  it('down: requests are not sent (status 0, after the call); a drop makes a create in flight unknown and the route logs on again', async () => {
    const { route, seen } = makeRoute();
    route.create(quote(5, 'rfq-x'));
    expect(seen.events).toEqual([]); // told a microtask later, never inside the call
    await Promise.resolve();
    expect(seen.events).toEqual(['create-reject 5 EXEC_DISCONNECTED 0']);

    await route.connect();
    try {
      const rfqId = await createRfq('2');
      await until(() => seen.rfqs.some((rfq) => rfq.id === rfqId), 'the RFQ');
      route.create(quote(6, rfqId));
      route.drop(); // before the answer can arrive
      await until(() => seen.has('create-unknown 6') || seen.has('create-ack 6'), 'the create outcome');
      expect(seen.events).toContain('create-unknown 6 EXEC_DISCONNECTED');
      await until(() => route.sessionState === 'active', 'the reconnect');
      route.create(quote(7, rfqId, '', 4100, 5400)); // replaces the earlier quote in this market
      await until(() => seen.acks.has(7), 'a create after the reconnect');
      await requester.delete(`/communications/rfqs/${rfqId}`);
    } finally {
      await route.close();
    }
    route.confirm(quote(7, 'rfq-x', 'q'));
    await Promise.resolve();
    expect(seen.events.at(-1)).toBe('confirm-reject 7 EXEC_DISCONNECTED 0');
  });
});

