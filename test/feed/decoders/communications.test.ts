// Goal: the `communications` channel decodes into its two reused records (websocket.md §6.11):
// rfq_created / rfq_deleted and quote_created / quote_accepted / quote_executed, with every
// required field checked (a frame missing one is MALFORMED naming it), optional fields at their
// sentinels when absent, prices and counts in core units, RFC3339 timestamps in Unix ms; the
// byte path (decode) and the JSON path (decodeText) agree, and the records are reused.
// Method: frames shaped as the simulator sends them (test/sim/server/rfq.test.ts validates those
// against the AsyncAPI) through one FrameDecoder.

import { describe, expect, it } from 'vitest';
import { CENTICENTS_INVALID, COUNT_INVALID, PRICE_INVALID } from '../../../src/core/index.ts';
import { FrameDecoder, MessageKind } from '../../../src/feed/index.ts';
import { MarketRegistry } from '../../../src/market/index.ts';

const decoder = new FrameDecoder(new MarketRegistry());

function frame(type: string, msg: Record<string, unknown>, seq: number | null = 7): string {
  return JSON.stringify(seq === null ? { type, sid: 3, msg } : { type, sid: 3, seq, msg });
}

function bytes(text: string): MessageKind {
  const buffer = Buffer.from(`xx${text}yy`);
  return decoder.decode(buffer, 2, buffer.length - 2);
}

const RFQ = { id: 'rfq-1', creator_id: 'abc', market_ticker: 'KX-A', event_ticker: 'KX', contracts_fp: '10.57', created_ts: '2026-09-01T12:00:00.000Z' };
const QUOTE = {
  quote_id: 'q-1', rfq_id: 'rfq-1', quote_creator_id: 'maker', rfq_creator_id: 'req', market_ticker: 'KX-A',
  yes_bid_dollars: '0.4000', no_bid_dollars: '0.5500', yes_contracts_offered_fp: '10.57', no_contracts_offered_fp: '10.57', created_ts: '2026-09-01T12:00:01Z',
};

describe('communications decoding', () => {
  it('rfq_created and rfq_deleted', () => {
    for (const decode of [bytes, (t: string) => decoder.decodeText(t)]) {
      expect(decode(frame('rfq_created', RFQ))).toBe(MessageKind.RFQ);
      const r = decoder.rfq;
      expect([r.eventType, r.sid, r.seq, r.id, r.creatorId, r.marketTicker, r.eventTicker, r.contracts, r.targetCost, r.tsMs]).toEqual([
        'created', 3, 7, 'rfq-1', 'abc', 'KX-A', 'KX', 1057, CENTICENTS_INVALID, Date.UTC(2026, 8, 1, 12),
      ]);
      expect(decode(frame('rfq_deleted', { id: 'rfq-2', creator_id: '', market_ticker: 'KX-B', target_cost_dollars: '12.50', deleted_ts: '2026-09-01T12:00:05Z' }, null))).toBe(MessageKind.RFQ);
      expect([r.eventType, r.seq, r.id, r.eventTicker, r.contracts, r.targetCost]).toEqual(['deleted', -1, 'rfq-2', '', COUNT_INVALID, 125_000]);
      expect(decoder.rfq).toBe(r); // reused
    }
  });

  it('quote_created, quote_accepted, quote_executed', () => {
    expect(bytes(frame('quote_created', { ...QUOTE, subaccount: 2 }))).toBe(MessageKind.QUOTE);
    const q = decoder.quote;
    expect([q.eventType, q.quoteId, q.rfqId, q.quoteCreatorId, q.rfqCreatorId, q.yesBid, q.noBid, q.yesContractsOffered, q.subaccount, q.acceptedSide, q.orderId]).toEqual([
      'created', 'q-1', 'rfq-1', 'maker', 'req', 4000, 5500, 1057, 2, '', '',
    ]);
    expect(q.tsMs).toBe(Date.UTC(2026, 8, 1, 12, 0, 1));
    const { created_ts: _created, ...accepted } = QUOTE;
    expect(bytes(frame('quote_accepted', { ...accepted, accepted_side: 'yes', contracts_accepted_fp: '10.57' }))).toBe(MessageKind.QUOTE);
    expect([q.eventType, q.acceptedSide, q.contractsAccepted, q.subaccount, q.tsMs]).toEqual(['accepted', 'yes', 1057, -1, -1]);
    expect(bytes(frame('quote_executed', {
      quote_id: 'q-1', rfq_id: 'rfq-1', quote_creator_id: 'maker', rfq_creator_id: 'req', order_id: 'o-1', client_order_id: 'c-1', market_ticker: 'KX-A', executed_ts: '2026-09-01T12:00:02Z',
    }))).toBe(MessageKind.QUOTE);
    expect([q.eventType, q.orderId, q.clientOrderId, q.yesBid, q.noBid, q.acceptedSide]).toEqual(['executed', 'o-1', 'c-1', PRICE_INVALID, PRICE_INVALID, '']);
  });

  it('rejects a frame missing a required field or with a bad unit, naming the field', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['rfq_created', { ...RFQ, id: undefined }, 'id'],
      ['rfq_created', { ...RFQ, created_ts: 'yesterday' }, 'created_ts'],
      ['rfq_created', { ...RFQ, contracts_fp: '1.234' }, 'contracts_fp'],
      ['rfq_deleted', { id: 'r', market_ticker: 'KX-A' }, 'deleted_ts'],
      ['quote_created', { ...QUOTE, yes_bid_dollars: 0.4 }, 'yes_bid_dollars'],
      ['quote_accepted', { ...QUOTE, accepted_side: 'maybe' }, 'accepted_side'],
      ['quote_executed', { quote_id: 'q', rfq_id: 'r' }, 'market_ticker'],
    ];
    for (const [type, msg, field] of cases) {
      expect(decoder.decodeText(frame(type, msg)), `${type} ${field}`).toBe(MessageKind.MALFORMED);
      expect(decoder.rejectReason).toBe(field);
    }
    expect(decoder.decodeText(JSON.stringify({ type: 'rfq_created', msg: RFQ }))).toBe(MessageKind.MALFORMED);
    expect(decoder.rejectReason).toBe('sid');
  });
});
