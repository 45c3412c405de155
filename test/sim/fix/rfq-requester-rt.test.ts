// Goal: the RFQ requester is served on KalshiRT as shared/spec/fix.md §7 says ("The requester (RFQ
// creator) uses KalshiRT: sends R, UA and UE; receives b, S, UC, UB, AG and 8"), with the same
// behaviour as on KalshiRFQ (one shared module): R -> b with 21023; the maker (KalshiRFQ) hears R
// and quotes; the requester's RT session receives the quote as 35=S with the maker's public
// communications id and 452=35; UA -> UC accepted with 21024; the maker confirms (U7 -> U8); the
// requester's RT session receives the ExecutionReport of its side and the venue's fills and
// positions agree with both parties' reports. Also: UE -> UB 21013=0; the unprompted UB 21013=2
// when the RFQ closes other than by the creator's own UE; UA for an unknown quote -> UC
// 58=NOT_FOUND; an invalid 35=R -> AG; KalshiNR refuses R/UA/UE with BusinessMessageReject 380=3;
// a listener RT session, and a subaccount-restricted key (which may not open RT at all) on
// KalshiRFQ, have their 35=R and 35=UA refused with 380=6.
// Method: startSim in-process with fix enabled (port 0 per session kind); FIX clients are our
// initiator FixSession on node:net sockets (fix-test-client.ts); REST through the signed test
// client for the venue's view. Waits are bounded polls.

import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MsgType, Tag } from '../../../src/fix/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { startTestSim } from '../helpers/test-sim.ts';
import { FixTestClient, until, type Received } from './fix-test-client.ts';

const MARKET = 'KXDEMO-26DEC31-T50';
const MAKER_USER = 'c0ffee00-0000-4000-8000-00000000c001';
const LISTENER_USER = 'c0ffee00-0000-4000-8000-00000000c002';
const RESTRICTED_USER = 'c0ffee00-0000-4000-8000-00000000c003';

type Who = { keyId: string; privateKey: KeyObject; rest: RestClient };
type Session = 'KalshiNR' | 'KalshiRT' | 'KalshiRFQ';

describe('the RFQ requester on KalshiRT', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let requester: Who;
  let maker: Who;
  const clients: FixTestClient[] = [];

  function who(created: { keyId: string; privateKeyPem: string }): Who {
    return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem), rest: new RestClient(sim.httpUrl, created) };
  }

  async function logon(sessionName: Session, party: Who, extra: Partial<ConstructorParameters<typeof FixTestClient>[0]> = {}): Promise<FixTestClient> {
    // 141=Y everywhere: each client starts with a fresh sequence store, while the simulator keeps the key's KalshiRT store.
    const client = await new FixTestClient({
      port: sim.fix!.ports[sessionName], sessionName, keyId: party.keyId, privateKey: party.privateKey, resetSeqNum: true, ...extra,
    }).open();
    clients.push(client);
    return client;
  }

  function quoteRequest(client: FixTestClient, reqId: string, contracts: string): void {
    client.send(MsgType.QuoteRequest, (e) => e.string(Tag.QuoteReqID, reqId).int(Tag.NoRelatedSym, 1).string(Tag.Symbol, MARKET).string(Tag.OrderQty, contracts));
  }

  const is = (msgType: string, tag: number, value: string) => (m: Received) => m.msgType === msgType && m.fields.get(tag) === value;
  /** The party's position in MARKET at the venue, in 1/100 contract. */
  async function positionOf(party: Who): Promise<number> {
    const positions = (await party.rest.get(`/portfolio/positions?ticker=${MARKET}`)).body.market_positions as Array<{ position_fp: string }>;
    return positions.length === 0 ? 0 : Math.round(Number(positions[0].position_fp) * 100);
  }

  const pick = (m: Received, tags: number[]) => Object.fromEntries(tags.map((t) => [t, m.fields.get(t)]));

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

  // The same flow with the requester on KalshiRFQ (still served there): one shared module, one behaviour.
  it.each(['KalshiRT', 'KalshiRFQ'] as const)('on %s: R -> b; the maker quotes; S with the maker\'s id; UA -> UC; U7 -> U8; the requester\'s ExecutionReport; fills and positions agree', async (sessionName) => {
    const requesterBefore = await positionOf(requester);
    const makerBefore = await positionOf(maker);
    const rt = await logon(sessionName, requester);
    const makerFix = await logon('KalshiRFQ', maker);
    expect(rt.session.state).toBe('active');
    const requesterCommsId = (await requester.rest.get('/communications/id')).body.communications_id;
    const makerCommsId = (await maker.rest.get('/communications/id')).body.communications_id;

    const reqId = `req-1-${sessionName}`;
    const acceptId = `acc-1-${sessionName}`;
    quoteRequest(rt, reqId, '10');
    const ack = await rt.next(is(MsgType.QuoteRequestAck, Tag.QuoteReqID, reqId), 'b on RT');
    const rfqId = ack.fields.get(Tag.RfqId)!;
    expect(rfqId).toBeTruthy();
    expect(pick(ack, [Tag.QuoteRequestType, Tag.Symbol])).toEqual({ [Tag.QuoteRequestType]: '1', [Tag.Symbol]: MARKET });
    expect(ack.fields.has(Tag.ExDestination)).toBe(true);
    expect((await requester.rest.get(`/communications/rfqs/${rfqId}`)).body.rfq).toMatchObject({ status: 'open', contracts_fp: '10.00' });

    // The maker hears the RFQ on KalshiRFQ; the RT session never receives 35=R (it is not a maker session).
    const request = await makerFix.next(is(MsgType.QuoteRequest, Tag.QuoteReqID, rfqId), 'R to the maker');
    expect(request.fields.get(Tag.PartyID)).toBe(requesterCommsId);
    const clientQuoteId = randomUUID();
    makerFix.send(MsgType.Quote, (e) => e.string(Tag.QuoteID, clientQuoteId).string(Tag.QuoteReqID, rfqId).string(Tag.Symbol, MARKET)
      .string(Tag.BidPx, '40').string(Tag.OfferPx, '55').string(Tag.ExecInst, '6'));
    const pending = await makerFix.next((m) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteReqID) === rfqId, 'AI PENDING');
    expect(pending.fields.get(Tag.QuoteStatus)).toBe('10');
    const quoteId = pending.fields.get(Tag.QuoteID)!;

    const toRequester = await rt.next(is(MsgType.Quote, Tag.QuoteID, quoteId), 'S on RT');
    expect(pick(toRequester, [Tag.QuoteReqID, Tag.Symbol, Tag.BidPx, Tag.OfferPx, Tag.OrderQty, Tag.NoPartyIDs, Tag.PartyID, Tag.PartyRole])).toEqual({
      [Tag.QuoteReqID]: rfqId, [Tag.Symbol]: MARKET, [Tag.BidPx]: '0.4000', [Tag.OfferPx]: '0.5500', [Tag.OrderQty]: '10.00',
      [Tag.NoPartyIDs]: '1', [Tag.PartyID]: makerCommsId, [Tag.PartyRole]: '35',
    });
    expect(rt.received.some((m) => m.msgType === MsgType.QuoteRequest)).toBe(false);

    // 54=1 accepts the maker's NO quote: the requester buys YES at 1 - 0.55 = 0.45.
    rt.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, quoteId).string(Tag.RfqId, rfqId).string(Tag.Side, '1').string(Tag.ClOrdID, acceptId));
    const uc = await rt.next(is(MsgType.AcceptQuoteStatus, Tag.ClOrdID, acceptId), 'UC on RT');
    expect(pick(uc, [Tag.QuoteID, Tag.AcceptQuoteStatus, Tag.AcceptedQuoteId])).toEqual({
      [Tag.QuoteID]: quoteId, [Tag.AcceptQuoteStatus]: '0', [Tag.AcceptedQuoteId]: quoteId,
    });
    const accepted = await makerFix.next((m) => is(MsgType.QuoteStatusReport, Tag.QuoteID, quoteId)(m) && m.fields.get(Tag.QuoteStatus) === '0', 'AI ACCEPTED');
    expect(accepted.fields.get(Tag.Side)).toBe('1');

    makerFix.send(MsgType.QuoteConfirm, (e) => e.string(Tag.QuoteID, clientQuoteId).string(Tag.RfqId, rfqId));
    const u8 = await makerFix.next(is(MsgType.QuoteConfirmStatus, Tag.QuoteID, quoteId), 'U8');
    expect(u8.fields.get(Tag.QuoteConfirmStatus)).toBe('0');
    const makerTrade = await makerFix.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ExecType) === 'F', 'maker trade');

    // The requester's side of the execution, on its RT session: 11 = the UA's ClOrdID.
    const trade = await rt.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ExecType) === 'F', 'requester trade on RT');
    expect(pick(trade, [Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.LastQty, Tag.LastPx, Tag.CumQty, Tag.LeavesQty, Tag.OrdStatus, Tag.AggressorIndicator])).toEqual({
      [Tag.ClOrdID]: acceptId, [Tag.Symbol]: MARKET, [Tag.Side]: '1', [Tag.LastQty]: '10.00', [Tag.LastPx]: '45', [Tag.CumQty]: '10.00',
      [Tag.LeavesQty]: '0.00', [Tag.OrdStatus]: '2', [Tag.AggressorIndicator]: 'N',
    });
    expect(trade.fields.get(Tag.LongQty)).toBe(`${(requesterBefore + 1000) / 100}.00`); // the position after the fill
    expect(trade.fields.get(Tag.TrdMatchID)).toBe(makerTrade.fields.get(Tag.TrdMatchID)); // one trade, two sides
    expect(trade.fields.get(Tag.ExecID)).not.toBe(makerTrade.fields.get(Tag.ExecID));
    // The RFQ closed by execution: no unprompted UB 21013=2 to the creator.
    await makerFix.next(is(MsgType.QuoteRequestReject, Tag.QuoteReqID, rfqId), 'AG to the maker on close');
    expect(rt.received.some((m) => m.msgType === MsgType.RFQCancelStatus)).toBe(false);

    // The venue agrees: the fill behind the report, and both positions.
    const requesterFills = await requester.rest.get(`/portfolio/fills?order_id=${trade.fields.get(Tag.OrderID)}`);
    expect(requesterFills.body.fills).toHaveLength(1);
    expect(requesterFills.body.fills[0]).toMatchObject({
      trade_id: trade.fields.get(Tag.TrdMatchID), count_fp: '10.00', yes_price_dollars: '0.4500', is_taker: false, book_side: 'bid',
    });
    expect(await positionOf(requester)).toBe(requesterBefore + 1000);
    expect(await positionOf(maker)).toBe(makerBefore - 1000);
    const final = await requester.rest.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
    expect(final.body.quote).toMatchObject({ status: 'executed', rfq_creator_order_id: trade.fields.get(Tag.OrderID) });
    await makerFix.logout();
    await rt.logout();
  });

  it('UE -> UB 21013=0; a close by REST -> unprompted UB 21013=2; UA on an unknown quote -> UC NOT_FOUND; a bad R -> AG', async () => {
    const rt = await logon('KalshiRT', requester);
    quoteRequest(rt, 'rt-req-2', '3');
    const ack = await rt.next(is(MsgType.QuoteRequestAck, Tag.QuoteReqID, 'rt-req-2'), 'b');
    const rfqId = ack.fields.get(Tag.RfqId)!;
    rt.send(MsgType.RFQCancel, (e) => e.string(Tag.QuoteReqID, 'rt-req-2'));
    const cancelled = await rt.next(is(MsgType.RFQCancelStatus, Tag.QuoteReqID, 'rt-req-2'), 'UB');
    expect(pick(cancelled, [Tag.RFQCancelStatus, Tag.RfqId])).toEqual({ [Tag.RFQCancelStatus]: '0', [Tag.RfqId]: rfqId });
    expect((await requester.rest.get(`/communications/rfqs/${rfqId}`)).body.rfq.status).toBe('closed');
    rt.send(MsgType.RFQCancel, (e) => e.string(Tag.RfqId, rfqId)); // already closed
    await until(() => rt.received.filter((m) => m.msgType === MsgType.RFQCancelStatus).length === 2, 'second UB');
    expect(rt.received.filter((m) => m.msgType === MsgType.RFQCancelStatus)[1].fields.get(Tag.RFQCancelStatus)).toBe('1');

    // Closed other than by this session's UE: the creator's RT session hears 21013=2, named by its own 131.
    quoteRequest(rt, 'rt-req-3', '2');
    const third = (await rt.next(is(MsgType.QuoteRequestAck, Tag.QuoteReqID, 'rt-req-3'), 'b 3')).fields.get(Tag.RfqId)!;
    expect((await requester.rest.delete(`/communications/rfqs/${third}`)).status).toBe(204);
    const expired = await rt.next((m) => is(MsgType.RFQCancelStatus, Tag.RfqId, third)(m) && m.fields.get(Tag.RFQCancelStatus) === '2', 'UB 21013=2');
    expect(expired.fields.get(Tag.QuoteReqID)).toBe('rt-req-3');

    rt.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, randomUUID()).string(Tag.Side, '2').string(Tag.ClOrdID, 'rt-acc-x'));
    const unknown = await rt.next(is(MsgType.AcceptQuoteStatus, Tag.ClOrdID, 'rt-acc-x'), 'UC NOT_FOUND');
    expect(pick(unknown, [Tag.AcceptQuoteStatus, Tag.Text])).toEqual({ [Tag.AcceptQuoteStatus]: '1', [Tag.Text]: 'NOT_FOUND' });
    expect(unknown.fields.has(Tag.AcceptedQuoteId)).toBe(false);

    rt.send(MsgType.QuoteRequest, (e) => e.string(Tag.QuoteReqID, 'rt-req-bad').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, 'NO-SUCH-MARKET').string(Tag.OrderQty, '1'));
    const refused = await rt.next(is(MsgType.QuoteRequestReject, Tag.QuoteReqID, 'rt-req-bad'), 'AG');
    expect(refused.fields.get(Tag.QuoteRequestRejectReason)).toBe('1');
    // Order entry on the same session is unaffected.
    expect(rt.received.some((m) => m.msgType === MsgType.BusinessMessageReject || m.msgType === MsgType.Reject)).toBe(false);
    await rt.logout();
  });

  it('KalshiNR refuses R, UA and UE as unsupported (380=3)', async () => {
    const nr = await logon('KalshiNR', requester);
    quoteRequest(nr, 'nr-req-1', '1');
    nr.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, randomUUID()).string(Tag.Side, '1'));
    nr.send(MsgType.RFQCancel, (e) => e.string(Tag.QuoteReqID, 'nr-req-1'));
    await until(() => nr.received.filter((m) => m.msgType === MsgType.BusinessMessageReject).length === 3, 'three 35=j');
    const rejects = nr.received.filter((m) => m.msgType === MsgType.BusinessMessageReject);
    expect(rejects.map((m) => [m.fields.get(Tag.RefMsgType), m.fields.get(Tag.BusinessRejectReason)])).toEqual([
      [MsgType.QuoteRequest, '3'], [MsgType.AcceptQuote, '3'], [MsgType.RFQCancel, '3'],
    ]);
    expect(nr.received.some((m) => m.msgType === MsgType.QuoteRequestAck || m.msgType === MsgType.AcceptQuoteStatus || m.msgType === MsgType.RFQCancelStatus)).toBe(false);
    await nr.logout();
  });

  it('refuses R and UA to a listener RT session, and to a restricted key (no RT for it; refused on KalshiRFQ)', async () => {
    const listenerKey = who(sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: LISTENER_USER }));
    const listener = await logon('KalshiRT', listenerKey, { logonFields: [[20126, 'Y'], [21011, 'Y']] });
    expect(listener.session.state).toBe('active');
    quoteRequest(listener, 'listen-req', '1');
    listener.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, randomUUID()).string(Tag.Side, '1'));
    await until(() => listener.received.filter((m) => m.msgType === MsgType.BusinessMessageReject).length === 2, 'two 35=j');
    expect(listener.received.filter((m) => m.msgType === MsgType.BusinessMessageReject).map((m) => [m.fields.get(Tag.RefMsgType), m.fields.get(Tag.BusinessRejectReason)]))
      .toEqual([[MsgType.QuoteRequest, '6'], [MsgType.AcceptQuote, '6']]);
    await listener.logout();

    const restrictedKey = who(sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: RESTRICTED_USER, subaccount: 2 }));
    const refusedRt = await logon('KalshiRT', restrictedKey);
    expect(refusedRt.closed).toBe(true);
    expect(refusedRt.wire().find((m) => m.msgType === MsgType.Logout)?.fields.get(Tag.Text)).toContain('subaccount-restricted');
    const rfq = await logon('KalshiRFQ', restrictedKey);
    expect(rfq.session.state).toBe('active');
    quoteRequest(rfq, 'restricted-req', '1');
    rfq.send(MsgType.AcceptQuote, (e) => e.string(Tag.QuoteID, randomUUID()).string(Tag.Side, '1'));
    await until(() => rfq.received.filter((m) => m.msgType === MsgType.BusinessMessageReject).length === 2, 'two 35=j');
    expect(rfq.received.filter((m) => m.msgType === MsgType.BusinessMessageReject).map((m) => [m.fields.get(Tag.RefMsgType), m.fields.get(Tag.BusinessRejectReason)]))
      .toEqual([[MsgType.QuoteRequest, '6'], [MsgType.AcceptQuote, '6']]);
    await rfq.logout();
  });
});
