/**
 * Goal: every message type the feed decodes lands in its reused record with prices, counts and
 * money in core units; optional fields absent or null give their sentinels and never leak from the
 * previous message; bad fields give MALFORMED with the field named; unknown types give UNKNOWN.
 * Method: documented example frames (spec/websocket.md §3, §6) through FrameDecoder as the socket
 * hands them over (UTF-8 bytes, here in the middle of a larger buffer), then variants with fields
 * removed or broken.
 */

import { describe, expect, it } from 'vitest';
import { CENTICENTS_INVALID, COUNT_INVALID, PRICE_INVALID } from '../../../src/core/index.ts';
import { MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { MarketRegistry } from '../../../src/market/index.ts';

function decoder(): FrameDecoder {
  const tickers = new MarketRegistry();
  tickers.add('KXEXAMPLE-26DEC31-T100');
  return new FrameDecoder(tickers);
}

/** Decodes `text` as the socket hands it over: UTF-8 bytes between other bytes of a chunk. */
function decode(d: FrameDecoder, text: string): MessageKind {
  const bytes = Buffer.concat([Buffer.from([0x81, 0x7e]), Buffer.from(text, 'utf8'), Buffer.from('{"type":"next"}')]);
  return d.decode(bytes, 2, bytes.length - 15);
}

const frame = (type: string, msg: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ type, sid: 3, msg, ...extra });

describe('FrameDecoder', () => {
  it('decodes a snapshot into typed level arrays (sides absent when empty)', () => {
    const d = decoder();
    const text =
      '{"type": "orderbook_snapshot", "sid": 4, "seq": 1, "msg": {"market_ticker": "KXEXAMPLE-26DEC31-T100", "market_id": "3f1c2d4e", "yes_dollars_fp": [["0.4100", "250.00"], ["0.4200", "40.00"]], "no_dollars_fp": [["0.5500", "75.00"], ["0.5600", "10.00"]]}}';
    expect(decode(d, text)).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    const s = d.snapshot;
    expect([s.sid, s.seq, s.marketTicker, s.marketIndex, s.yesLevelCount, s.noLevelCount]).toEqual([4, 1, 'KXEXAMPLE-26DEC31-T100', 0, 2, 2]);
    expect([s.yesPrice(0), s.yesSize(0), s.yesPrice(1), s.yesSize(1)]).toEqual([4100, 25000, 4200, 4000]);
    expect([s.noPrice(0), s.noSize(0), s.noPrice(1), s.noSize(1)]).toEqual([5500, 7500, 5600, 1000]);
    expect(decode(d, '{"type":"orderbook_snapshot","sid":4,"seq":2,"msg":{"market_ticker":"X"}}')).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    expect([d.snapshot.yesLevelCount, d.snapshot.noLevelCount, d.snapshot.marketIndex]).toEqual([0, 0, -1]);
    // Grows past its initial capacity.
    const wide = Array.from({ length: 300 }, (_, i) => [`0.${String(i + 1).padStart(4, '0')}`, '1.00']);
    expect(decode(d, frame('orderbook_snapshot', { market_ticker: 'X', yes_dollars_fp: wide }, { seq: 3 }))).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    expect([d.snapshot.yesLevelCount, d.snapshot.yesPrice(299)]).toEqual([300, 300]);
  });

  it('rejects snapshots with a bad level', () => {
    const d = decoder();
    for (const levels of [[['0.41']], [['0.41', '1.001']], [[0.41, '1.00']], [['0.41', '1.00', 'x']], 'nope', [['-0.1', '1.00']]]) {
      expect(decode(d, frame('orderbook_snapshot', { market_ticker: 'X', yes_dollars_fp: levels }, { seq: 1 }))).toBe(MessageKind.MALFORMED);
      expect(d.rejectReason).toBe('yes_dollars_fp');
    }
    expect(decode(d, frame('orderbook_snapshot', { market_ticker: 'X' }))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe('seq');
  });

  it('decodes trades', () => {
    const d = decoder();
    const msg = {
      trade_id: 't1', market_ticker: 'M', yes_price_dollars: '0.3600', no_price_dollars: '0.6400', count_fp: '136.00',
      taker_outcome_side: 'no', taker_book_side: 'ask', taker_side: 'no', is_block_trade: false, ts_ms: 1669149841000, ts: 1669149841,
    };
    expect(decode(d, frame('trade', msg))).toBe(MessageKind.TRADE);
    expect({ ...d.trade }).toEqual({
      type: 'trade', sid: 3, seq: -1, tradeId: 't1', marketTicker: 'M', yesPrice: 3600, noPrice: 6400, count: 13600,
      takerOutcomeSide: 'no', takerBookSide: 'ask', isBlockTrade: false, tsMs: 1669149841000,
    });
    // Older wire: only the deprecated taker_side.
    const { taker_outcome_side: _a, taker_book_side: _b, ...old } = msg;
    expect(decode(d, frame('trade', { ...old, taker_side: 'yes' }, { seq: 12 }))).toBe(MessageKind.TRADE);
    expect([d.trade.takerOutcomeSide, d.trade.takerBookSide, d.trade.seq]).toEqual(['yes', 'bid', 12]);
    expect(decode(d, frame('trade', { ...msg, count_fp: 136 }))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe('count_fp');
  });

  it('decodes fills, with optional fields reset between messages', () => {
    const d = decoder();
    const msg = {
      trade_id: 'f1', order_id: 'o1', client_order_id: 'c1', market_ticker: 'M', exchange_index: 2, is_taker: true,
      outcome_side: 'yes', book_side: 'bid', side: 'yes', action: 'buy', purchased_side: 'yes', yes_price_dollars: '0.7500',
      count_fp: '10.00', fee_cost: '0.010000', post_position_fp: '-5.00', subaccount: 3, ts_ms: 1700000000000, ts: 1700000000,
    };
    expect(decode(d, frame('fill', msg))).toBe(MessageKind.FILL);
    expect({ ...d.fill }).toEqual({
      type: 'fill', sid: 3, tradeId: 'f1', orderId: 'o1', clientOrderId: 'c1', marketTicker: 'M', exchangeIndex: 2, isTaker: true,
      outcomeSide: 'yes', bookSide: 'bid', action: 'buy', yesPrice: 7500, count: 1000, feeCost: 100, postPosition: -500,
      subaccount: 3, tsMs: 1700000000000,
    });
    const { client_order_id: _c, subaccount: _s, exchange_index: _e, post_position_fp: _p, ...minimal } = msg;
    expect(decode(d, frame('fill', { ...minimal, client_order_id: null }))).toBe(MessageKind.FILL);
    expect([d.fill.clientOrderId, d.fill.subaccount, d.fill.exchangeIndex, d.fill.postPosition]).toEqual(['', -1, -1, COUNT_INVALID]);
    expect(decode(d, frame('fill', { ...msg, fee_cost: '0.0100001' }))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe('fee_cost');
  });

  it('decodes user orders (market under `ticker`)', () => {
    const d = decoder();
    const msg = {
      order_id: 'o1', user_id: 'u1', ticker: 'M', status: 'resting', outcome_side: 'no', book_side: 'ask', side: 'no', is_yes: false,
      yes_price_dollars: '0.3500', fill_count_fp: '0.00', remaining_count_fp: '10.00', initial_count_fp: '10.00',
      taker_fill_cost_dollars: '0.0000', maker_fill_cost_dollars: '0.0000', taker_fees_dollars: '0.0000', maker_fees_dollars: '0.0000',
      client_order_id: 'c1', order_group_id: 'g1', self_trade_prevention_type: 'maker', created_ts_ms: 1, last_updated_ts_ms: 2,
      expiration_ts_ms: 3, subaccount_number: 4, exchange_index: 0, last_update_reason: 'Amend',
    };
    expect(decode(d, frame('user_order', msg))).toBe(MessageKind.USER_ORDER);
    expect(d.userOrder).toMatchObject({
      ticker: 'M', status: 'resting', outcomeSide: 'no', bookSide: 'ask', yesPrice: 3500, fillCount: 0, remainingCount: 1000,
      initialCount: 1000, takerFillCost: 0, orderGroupId: 'g1', selfTradePreventionType: 'maker', subaccount: 4, exchangeIndex: 0,
      lastUpdateReason: 'Amend', expirationTsMs: 3,
    });
    const { order_group_id: _g, expiration_ts_ms: _x, maker_fees_dollars: _m, ...rest } = msg;
    expect(decode(d, frame('user_order', rest))).toBe(MessageKind.USER_ORDER);
    expect([d.userOrder.orderGroupId, d.userOrder.expirationTsMs, d.userOrder.makerFees]).toEqual(['', -1, CENTICENTS_INVALID]);
    expect(decode(d, frame('user_order', { ...msg, status: 'pending' }))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe('status');
  });

  it('decodes market positions and order group updates', () => {
    const d = decoder();
    const position = {
      user_id: 'u', market_ticker: 'M', position_fp: '-12.00', position_cost_dollars: '5.5000', realized_pnl_dollars: '-1.2500',
      fees_paid_dollars: '0.0700', position_fee_cost_dollars: '0.0100', volume_fp: '30.00', subaccount: 0,
    };
    expect(decode(d, frame('market_position', position))).toBe(MessageKind.MARKET_POSITION);
    expect(d.marketPosition).toMatchObject({ position: -1200, positionCost: 55000, realizedPnl: -12500, feesPaid: 700, volume: 3000, subaccount: 0 });
    const group = { event_type: 'limit_updated', order_group_id: 'g', contracts_limit_fp: '50.00', ts_ms: 5 };
    expect(decode(d, frame('order_group_updates', group, { seq: 8 }))).toBe(MessageKind.ORDER_GROUP_UPDATE);
    expect(d.orderGroupUpdate).toMatchObject({ seq: 8, eventType: 'limit_updated', orderGroupId: 'g', contractsLimit: 5000, tsMs: 5 });
    expect(decode(d, frame('order_group_updates', { event_type: 'triggered', order_group_id: 'g', ts_ms: 6 }))).toBe(MessageKind.ORDER_GROUP_UPDATE);
    expect([d.orderGroupUpdate.contractsLimit, d.orderGroupUpdate.seq]).toEqual([COUNT_INVALID, -1]);
  });

  it('decodes market lifecycle events, event lifecycle and fee updates', () => {
    const d = decoder();
    const created = {
      event_type: 'created', market_ticker: 'M', exchange_index: 1, open_ts: 100, close_ts: 200, price_level_structure: 'deci_cent',
      price_ranges: [{ start: '0.0000', end: '1.0000', step: '0.0010' }], additional_metadata: { name: 'n', can_close_early: true },
    };
    expect(decode(d, frame('market_lifecycle_v2', created))).toBe(MessageKind.MARKET_LIFECYCLE);
    expect(d.marketLifecycle).toMatchObject({ eventType: 'created', exchangeIndex: 1, openTs: 100, closeTs: 200, priceLevelStructure: 'deci_cent' });
    expect(d.marketLifecycle.priceRanges).toEqual(created.price_ranges);
    expect(d.marketLifecycle.additionalMetadata).toEqual(created.additional_metadata);
    const determined = { event_type: 'determined', market_ticker: 'M', result: 'yes', determination_ts: 300, settlement_value: '1.0000' };
    expect(decode(d, frame('market_lifecycle_v2', determined))).toBe(MessageKind.MARKET_LIFECYCLE);
    expect(d.marketLifecycle).toMatchObject({ eventType: 'determined', result: 'yes', settlementValue: 10000, closeTs: -1, priceRanges: null, additionalMetadata: null });
    const metadata = { event_type: 'metadata_updated', market_ticker: 'M', strike_type: 'greater', floor_strike: 95000, yes_sub_title: 'Above 95k' };
    expect(decode(d, frame('market_lifecycle_v2', metadata))).toBe(MessageKind.MARKET_LIFECYCLE);
    expect(d.marketLifecycle).toMatchObject({ strikeType: 'greater', floorStrike: 95000, capStrike: null, yesSubTitle: 'Above 95k' });
    expect(decode(d, frame('market_lifecycle_v2', { event_type: 'deactivated', market_ticker: 'M', is_deactivated: true }))).toBe(MessageKind.MARKET_LIFECYCLE);
    expect(d.marketLifecycle.isDeactivated).toBe(true);
    expect(decode(d, frame('market_lifecycle_v2', { event_type: 'price_level_structure_updated', market_ticker: 'M', price_ranges: [{ start: 1 }] }))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe('price_ranges');

    const event = { event_ticker: 'E', exchange_index: 0, title: 'T', subtitle: 'S', collateral_return_type: 'MECNET', series_ticker: 'SER', strike_date: 9 };
    expect(decode(d, frame('event_lifecycle', event))).toBe(MessageKind.EVENT_LIFECYCLE);
    expect(d.eventLifecycle).toMatchObject({ eventTicker: 'E', subtitle: 'S', collateralReturnType: 'MECNET', strikeDate: 9, strikePeriod: '' });
    expect(decode(d, frame('event_fee_update', { event_ticker: 'E', fee_type_override: null, fee_multiplier_override: 0.5 }))).toBe(MessageKind.EVENT_FEE_UPDATE);
    expect(d.eventFeeUpdate).toMatchObject({ feeTypeOverride: null, feeMultiplierOverride: 0.5 });
  });

  it('decodes command replies', () => {
    const d = decoder();
    expect(decode(d, '{"id": 1, "type": "subscribed", "msg": {"channel": "orderbook_delta", "sid": 4}}')).toBe(MessageKind.SUBSCRIBED);
    expect([d.subscribed.id, d.subscribed.channel, d.subscribed.sid]).toEqual([1, 'orderbook_delta', 4]);
    expect(decode(d, '{"id": 9, "type": "unsubscribed", "sid": 4, "seq": 118}')).toBe(MessageKind.UNSUBSCRIBED);
    expect([d.unsubscribed.id, d.unsubscribed.sid, d.unsubscribed.seq]).toEqual([9, 4, 118]);
    expect(decode(d, '{"id": 12, "type": "ok", "sid": 4, "seq": 131, "msg": {"market_tickers": ["A", "B"]}}')).toBe(MessageKind.OK);
    expect([d.ok.id, d.ok.sid, d.ok.seq, d.ok.marketTickers, d.ok.subscriptions]).toEqual([12, 4, 131, ['A', 'B'], null]);
    expect(decode(d, '{"id": 3, "type": "ok", "msg": [{"channel": "orderbook_delta", "sid": 4}, {"channel": "trade", "sid": 5}]}')).toBe(MessageKind.OK);
    expect([d.ok.sid, d.ok.marketTickers, d.ok.subscriptions]).toEqual([-1, null, [{ channel: 'orderbook_delta', sid: 4 }, { channel: 'trade', sid: 5 }]]);
    expect(decode(d, '{"id": 7, "type": "error", "msg": {"code": 8, "msg": "Unknown channel name"}}')).toBe(MessageKind.ERROR);
    expect([d.error.id, d.error.sid, d.error.code, d.error.message]).toEqual([7, -1, 8, 'Unknown channel name']);
    expect(decode(d, '{"type": "error", "sid": 4, "seq": 977, "msg": {"code": 25, "msg": "Subscription buffer overflow"}}')).toBe(MessageKind.ERROR);
    expect([d.error.id, d.error.sid, d.error.seq, d.error.code]).toEqual([-1, 4, 977, 25]);
    expect(decode(d, '{"id": 0, "type": "error", "msg": {"code": 1}}')).toBe(MessageKind.ERROR);
    expect(d.error.id).toBe(-1); // 0 means no id
    expect(decode(d, '{"id": 1, "type": "subscribed", "msg": {"channel": "x"}}')).toBe(MessageKind.MALFORMED);
    expect(decode(d, '{"type": "error", "msg": {"msg": "no code"}}')).toBe(MessageKind.MALFORMED);
  });

  it('gives UNKNOWN for other types and MALFORMED for non-frames', () => {
    const d = decoder();
    expect(decode(d, '{"type":"ticker","sid":1,"msg":{}}')).toBe(MessageKind.UNKNOWN);
    expect(d.unknownType).toBe('ticker');
    for (const text of ['', 'x', '[]', '5', '"s"', '{"sid":1}', '{"type":5}', '{"type":"trade","sid":1}', '{"type":"trade","sid":-1,"msg":{}}']) {
      expect(decode(d, text), text).toBe(MessageKind.MALFORMED);
    }
    expect(PRICE_INVALID).toBe(-1);
  });
});
