// Goal: the simulator's KalshiRFQ session behaves as shared/spec/fix.md §7 says, over real sockets,
// on the same RFQ book as the REST routes: its own port, 141=Y required; an RFQ created over REST
// reaches a FIX maker as QuoteRequest (35=R, the creator's communications id in 448); a FIX Quote
// (35=S, post-only) is answered with QuoteStatusReport PENDING with BidSize/OfferSize; the requester's
// RFQ session receives the quote as 35=S with the maker's public communications id (452=35); the
// creator accepts over REST, the maker hears AI ACCEPTED, confirms with QuoteConfirm (35=U7), gets
// U8 and the ExecutionReport of its side; fills and positions at the venue for both parties;
// QuoteCancel (35=Z) -> U9 and AI CANCELLED; AcceptQuote (35=UA) -> AcceptQuoteStatus NOT_FOUND /
// EXPIRED; an RFQ that closes -> QuoteRequestReject (35=AG, 658=99); an invalid combo -> AG with
// 658=99, 20187 and the offending legs; throttling -> BusinessMessageReject 380=8.
// Method: startSim in-process with fix enabled (port 0 per session kind); FIX clients are our
// initiator FixSession on node:net sockets; REST through the signed test client. Waits are bounded polls.

import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MsgType, Tag } from '../../../src/fix/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { startTestSim } from '../helpers/test-sim.ts';
import { FixTestClient, until, type Received } from './fix-test-client.ts';

const MARKET = 'KXDEMO-26DEC31-T50';
const MAKER_USER = 'c0ffee00-0000-4000-8000-00000000b001';
const COLLECTION = 'KXMVECROSSCATEGORY-R';
const FED = 'KXFEDDECISION-26DEC';

type Who = { keyId: string; privateKey: KeyObject; rest: RestClient };

describe('KalshiRFQ session', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let requester: Who;
  let maker: Who;
  const clients: FixTestClient[] = [];

  function who(created: { keyId: string; privateKeyPem: string }): Who {
    return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem), rest: new RestClient(sim.httpUrl, created) };
  }

  async function logon(party: Who, extra: Partial<ConstructorParameters<typeof FixTestClient>[0]> = {}): Promise<FixTestClient> {
    const client = await new FixTestClient({ port: sim.fix!.ports.KalshiRFQ, sessionName: 'KalshiRFQ', keyId: party.keyId, privateKey: party.privateKey, ...extra }).open();
    clients.push(client);
    return client;
  }

  async function createRfq(contracts = '10'): Promise<string> {
    const created = await requester.rest.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: contracts, rest_remainder: false });
    expect(created.status, created.text).toBe(201);
    return created.body.id;
  }

  function sendQuote(client: FixTestClient, rfqId: string, quoteId: string, bid = '40', offer = '55'): void {
    client.send(MsgType.Quote, (e) => e.string(Tag.QuoteID, quoteId).string(Tag.QuoteReqID, rfqId).string(Tag.Symbol, MARKET)
      .string(Tag.BidPx, bid).string(Tag.OfferPx, offer).string(Tag.ExecInst, '6'));
  }

  const is = (msgType: string, tag: number, value: string) => (m: Received) => m.msgType === msgType && m.fields.get(tag) === value;

  beforeAll(async () => {
    sim = await startTestSim({ fix: { enabled: true } });
    requester = who(sim.demoKey);
    maker = who(sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: MAKER_USER }));
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) {
      client.destroy();
      await until(() => client.closed, 'client closed');
    }
  });

  afterAll(async () => {
    await sim.close();
  });

  it('listens on its own port; Logon needs 141=Y and refuses listener mode', async () => {
    const ports = sim.fix!.ports;
    expect(ports.KalshiRFQ).toBeGreaterThan(0);
    expect(new Set(Object.values(ports)).size).toBe(6);
    const noReset = await logon(maker, { resetSeqNum: false });
    expect(noReset.closed).toBe(true);
    expect(noReset.wire().find((m) => m.msgType === MsgType.Logout)?.fields.get(Tag.Text)).toContain('141');
    const listener = await logon(maker, { logonFields: [[20126, 'Y'], [21011, 'Y']] });
    expect(listener.closed).toBe(true);
    const ok = await logon(maker);
    expect(ok.session.state).toBe('active');
    await ok.logout();
  });

  it('RFQ over REST -> R to the maker; S -> AI PENDING; accept over REST -> AI ACCEPTED; U7 -> U8 and the execution; fills and positions', async () => {
    const makerFix = await logon(maker);
    const requesterFix = await logon(requester, { logonFields: [[21005, 'Y']] });
    const requesterCommsId = (await requester.rest.get('/communications/id')).body.communications_id;
    const makerCommsId = (await maker.rest.get('/communications/id')).body.communications_id;

    const rfqId = await createRfq('10');
    const request = await makerFix.next(is(MsgType.QuoteRequest, Tag.QuoteReqID, rfqId), 'QuoteRequest');
    expect(request.fields.get(Tag.NoRelatedSym)).toBe('1');
    expect(request.fields.get(Tag.Symbol)).toBe(MARKET);
    expect(request.fields.get(Tag.OrderQty)).toBe('10.00');
    expect(request.fields.get(Tag.PartyID)).toBe(requesterCommsId);
    expect(requesterFix.received.some(is(MsgType.QuoteRequest, Tag.QuoteReqID, rfqId))).toBe(false); // not to its own creator

    const clientQuoteId = randomUUID();
    sendQuote(makerFix, rfqId, clientQuoteId);
    const pending = await makerFix.next((m) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteReqID) === rfqId, 'AI PENDING');
    expect(pending.fields.get(Tag.QuoteStatus)).toBe('10');
    const quoteId = pending.fields.get(Tag.QuoteID)!;
    expect(quoteId).not.toBe(clientQuoteId); // the server's quote id
    expect(Object.fromEntries([Tag.BidPx, Tag.OfferPx, Tag.BidSize, Tag.OfferSize, Tag.OrderQty].map((t) => [t, pending.fields.get(t)])))
      .toEqual({ [Tag.BidPx]: '40', [Tag.OfferPx]: '55', [Tag.BidSize]: '10.00', [Tag.OfferSize]: '10.00', [Tag.OrderQty]: '10.00' });
    const rest = await maker.rest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
    expect(rest.body.quote).toMatchObject({ status: 'open', post_only: true, yes_bid_dollars: '0.4000', no_bid_dollars: '0.5500' });

    // The requester's RFQ session hears the quote with the maker's public id as liquidity provider.
    const toRequester = await requesterFix.next(is(MsgType.Quote, Tag.QuoteID, quoteId), 'S to the requester');
    expect(toRequester.fields.get(Tag.PartyID)).toBe(makerCommsId);
    expect(toRequester.fields.get(Tag.PartyRole)).toBe('35');
    expect(toRequester.fields.get(Tag.NoPartyIDs)).toBe('1');
    expect(toRequester.fields.get(Tag.BidPx)).toBe('0.4000');
    expect(toRequester.fields.get(Tag.OfferPx)).toBe('0.5500');
    expect(makerCommsId).not.toContain(MAKER_USER);

    const accepted = await requester.rest.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'yes' });
    expect(accepted.status, accepted.text).toBe(204);
    const acceptedReport = await makerFix.next((m) => is(MsgType.QuoteStatusReport, Tag.QuoteID, quoteId)(m) && m.fields.get(Tag.QuoteStatus) === '0', 'AI ACCEPTED');
    expect(acceptedReport.fields.get(Tag.Side)).toBe('1'); // the creator takes YES

    const from = makerFix.received.length;
    makerFix.send(MsgType.QuoteConfirm, (e) => e.string(Tag.QuoteID, clientQuoteId).string(Tag.RfqId, rfqId));
    const trade = await makerFix.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ExecType) === 'F', 'trade report', from);
    const after = makerFix.received.slice(from);
    const confirmAt = after.findIndex((m) => m.msgType === MsgType.QuoteConfirmStatus);
    expect(confirmAt).toBeGreaterThanOrEqual(0);
    expect(after[confirmAt].fields.get(Tag.QuoteConfirmStatus)).toBe('0');
    expect(confirmAt).toBeLessThan(after.indexOf(trade)); // U8 before the execution
    // The requester bought YES at 1 - 0.55 = 0.45; the maker sold YES (bought NO) as the taker.
    expect(Object.fromEntries([Tag.ClOrdID, Tag.Side, Tag.LastQty, Tag.LastPx, Tag.CumQty, Tag.LeavesQty, Tag.OrdStatus, Tag.ShortQty, Tag.AggressorIndicator]
      .map((t) => [t, trade.fields.get(t)]))).toEqual({
      [Tag.ClOrdID]: clientQuoteId, [Tag.Side]: '2', [Tag.LastQty]: '10.00', [Tag.LastPx]: '45', [Tag.CumQty]: '10.00', [Tag.LeavesQty]: '0.00',
      [Tag.OrdStatus]: '2', [Tag.ShortQty]: '10.00', [Tag.AggressorIndicator]: 'Y',
    });

    const final = await maker.rest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
    expect(final.body.quote.status).toBe('executed');
    const makerFills = await maker.rest.get(`/portfolio/fills?order_id=${trade.fields.get(Tag.OrderID)}`);
    expect(makerFills.body.fills[0]).toMatchObject({ count_fp: '10.00', yes_price_dollars: '0.4500', is_taker: true, trade_id: trade.fields.get(Tag.TrdMatchID) });
    const requesterFills = await requester.rest.get(`/portfolio/fills?ticker=${MARKET}`);
    expect(requesterFills.body.fills.find((f: { trade_id: string }) => f.trade_id === trade.fields.get(Tag.TrdMatchID))).toMatchObject({ count_fp: '10.00', book_side: 'bid' });
    expect((await requester.rest.get(`/portfolio/positions?ticker=${MARKET}`)).body.market_positions[0]).toMatchObject({ position_fp: '10.00' });
    expect((await maker.rest.get(`/portfolio/positions?ticker=${MARKET}`)).body.market_positions[0]).toMatchObject({ position_fp: '-10.00' });
    // The RFQ closed by execution: the maker hears it as QuoteRequestReject 658=99.
    const closed = await makerFix.next(is(MsgType.QuoteRequestReject, Tag.QuoteReqID, rfqId), 'AG on close');
    expect(closed.fields.get(Tag.QuoteRequestRejectReason)).toBe('99');
    await makerFix.logout();
    await requesterFix.logout();
  });

  it('QuoteCancel -> U9 and AI CANCELLED; AcceptQuote -> UC EXPIRED, NOT_FOUND and accepted; RFQ cancel -> AG', async () => {
    const makerFix = await logon(maker, { logonFields: [[21005, 'Y']] });
    const requesterFix = await logon(requester);
    const rfqId = await createRfq('5');
    await makerFix.next(is(MsgType.QuoteRequest, Tag.QuoteReqID, rfqId), 'QuoteRequest');
    const clientQuoteId = randomUUID();
    sendQuote(makerFix, rfqId, clientQuoteId, '0.4000', '0'); // only the YES side
    const pending = await makerFix.next((m) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteReqID) === rfqId, 'AI PENDING');
    const quoteId = pending.fields.get(Tag.QuoteID)!;
    expect(pending.fields.get(Tag.BidSize)).toBe('5.00');
    expect(pending.fields.has(Tag.OfferSize)).toBe(false);
    expect(pending.fields.get(Tag.BidPx)).toBe('0.4000');

    makerFix.send(MsgType.QuoteCancel, (e) => e.string(Tag.QuoteID, clientQuoteId));
    const cancelStatus = await makerFix.next(is(MsgType.QuoteCancelStatus, Tag.QuoteID, quoteId), 'U9');
    expect(cancelStatus.fields.get(Tag.QuoteCancelStatus)).toBe('0');
    await makerFix.next((m) => is(MsgType.QuoteStatusReport, Tag.QuoteID, quoteId)(m) && m.fields.get(Tag.QuoteStatus) === '17', 'AI CANCELLED');
    makerFix.send(MsgType.QuoteCancel, (e) => e.string(Tag.QuoteID, quoteId));
    await until(() => makerFix.received.filter(is(MsgType.QuoteCancelStatus, Tag.QuoteID, quoteId)).length === 2, 'second U9');
    const again = makerFix.received.filter(is(MsgType.QuoteCancelStatus, Tag.QuoteID, quoteId))[1];
    expect([again.fields.get(Tag.QuoteCancelStatus), again.fields.get(Tag.Text)]).toEqual(['1', 'EXPIRED']);

    // The requester accepts over FIX: a cancelled quote is EXPIRED, an unknown one NOT_FOUND.
    requesterFix.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, quoteId).string(Tag.RfqId, rfqId).string(Tag.Side, '2').string(Tag.ClOrdID, 'acc-1'));
    const expired = await requesterFix.next(is(MsgType.AcceptQuoteStatus, Tag.ClOrdID, 'acc-1'), 'UC EXPIRED');
    expect([expired.fields.get(Tag.AcceptQuoteStatus), expired.fields.get(Tag.Text)]).toEqual(['1', 'EXPIRED']);
    requesterFix.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, randomUUID()).string(Tag.Side, '1').string(Tag.ClOrdID, 'acc-2'));
    const unknown = await requesterFix.next(is(MsgType.AcceptQuoteStatus, Tag.ClOrdID, 'acc-2'), 'UC NOT_FOUND');
    expect([unknown.fields.get(Tag.AcceptQuoteStatus), unknown.fields.get(Tag.Text)]).toEqual(['1', 'NOT_FOUND']);

    // A fresh quote accepted over FIX: UC accepted, the maker hears AI ACCEPTED with 54=2 (the creator takes NO).
    const second = randomUUID();
    sendQuote(makerFix, rfqId, second, '0.4000', '0.5500');
    const secondPending = await makerFix.next((m) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteStatus) === '10' && m.fields.get(Tag.QuoteID) !== quoteId, 'AI PENDING 2');
    const secondId = secondPending.fields.get(Tag.QuoteID)!;
    requesterFix.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, secondId).string(Tag.Side, '2').string(Tag.ClOrdID, 'acc-3'));
    const ok = await requesterFix.next(is(MsgType.AcceptQuoteStatus, Tag.ClOrdID, 'acc-3'), 'UC accepted');
    expect([ok.fields.get(Tag.AcceptQuoteStatus), ok.fields.get(Tag.AcceptedQuoteId)]).toEqual(['0', secondId]);
    const acceptedReport = await makerFix.next((m) => is(MsgType.QuoteStatusReport, Tag.QuoteID, secondId)(m) && m.fields.get(Tag.QuoteStatus) === '0', 'AI ACCEPTED');
    expect(acceptedReport.fields.get(Tag.Side)).toBe('2');

    // The creator cancels the RFQ over REST: the maker gets AG 658=99 and its accepted quote is CANCELLED.
    expect((await requester.rest.delete(`/communications/rfqs/${rfqId}`)).status).toBe(204);
    const rejected = await makerFix.next(is(MsgType.QuoteRequestReject, Tag.QuoteReqID, rfqId), 'AG');
    expect(rejected.fields.get(Tag.QuoteRequestRejectReason)).toBe('99');
    await makerFix.next((m) => is(MsgType.QuoteStatusReport, Tag.QuoteID, secondId)(m) && m.fields.get(Tag.QuoteStatus) === '17', 'AI CANCELLED on close');
    await makerFix.logout();
    await requesterFix.logout();
  });

  it('QuoteRequest over FIX: ack with the server RFQ id; an invalid combo is AG 658=99 with 20187 and the offending legs', async () => {
    const requesterFix = await logon(requester);
    requesterFix.send(MsgType.QuoteRequest, (e) => e.string(Tag.QuoteReqID, 'req-1').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, MARKET).string(Tag.OrderQty, '3'));
    const ack = await requesterFix.next(is(MsgType.QuoteRequestAck, Tag.QuoteReqID, 'req-1'), 'b');
    expect(ack.fields.get(Tag.Symbol)).toBe(MARKET);
    const rfqId = ack.fields.get(Tag.RfqId)!;
    expect((await requester.rest.get(`/communications/rfqs/${rfqId}`)).body.rfq).toMatchObject({ status: 'open', contracts_fp: '3.00' });
    requesterFix.send(MsgType.RFQCancel, (e) => e.string(Tag.QuoteReqID, 'req-1'));
    const cancelled = await requesterFix.next((m) => m.msgType === MsgType.RFQCancelStatus, 'UB');
    expect([cancelled.fields.get(Tag.RFQCancelStatus), cancelled.fields.get(Tag.RfqId)]).toEqual(['0', rfqId]);

    requesterFix.send(MsgType.QuoteRequest, (e) => {
      e.string(Tag.QuoteReqID, 'req-2').string(Tag.MultivariateCollectionTicker, COLLECTION).int(Tag.NoMultivariateSelectedLegs, 2);
      for (let i = 0; i < 2; i++) e.string(Tag.MultivariateSelectedEventTicker, FED).string(Tag.MultivariateSelectedMarketTicker, `${FED}-H0`).string(Tag.MultivariateSelectedSide, 'yes');
      e.int(Tag.NoRelatedSym, 1).string(Tag.OrderQty, '1');
    });
    const reject = await requesterFix.next(is(MsgType.QuoteRequestReject, Tag.QuoteReqID, 'req-2'), 'AG combo');
    expect(reject.fields.get(Tag.QuoteRequestRejectReason)).toBe('99');
    expect(reject.fields.get(Tag.MVEValidationReasonCode)).toBe('duplicated_legs');
    expect(reject.fields.get(Tag.NoMVEOffendingLegs)).toBe('1');
    expect(reject.fields.get(Tag.MVEOffendingMarketTicker)).toBe(`${FED}-H0`);
    await requesterFix.logout();
  });

  it('throttling: a quote beyond the key\'s write budget is BusinessMessageReject 380=8', async () => {
    const basic = who(sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic', userId: 'c0ffee00-0000-4000-8000-00000000b002' }));
    const client = await logon(basic);
    let sent = 0;
    for (; sent < 500 && !client.received.some((m) => m.msgType === MsgType.BusinessMessageReject); sent++) {
      client.send(MsgType.QuoteCancel, (e) => e.string(Tag.QuoteID, `q-${sent}`));
      if (sent % 20 === 19) await until(() => client.received.length >= sent + 1, 'answers');
    }
    const throttled = await client.next((m) => m.msgType === MsgType.BusinessMessageReject, '380=8');
    expect(throttled.fields.get(Tag.BusinessRejectReason)).toBe('8');
    expect(throttled.fields.get(Tag.RefMsgType)).toBe(MsgType.QuoteCancel);
    await client.logout();
  });
});
