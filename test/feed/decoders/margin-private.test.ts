/**
 * Goal: Margin `user_order`, `fill`, `trade` (websocket.md §7.3) and `ticker` (§7.2) frames decode
 * into the feed's records in the Predictions terms the OMS reads: a bid is "buy YES at price"
 * (bookSide bid, outcomeSide yes), an ask "sell YES at price" (bookSide ask, outcomeSide no), the
 * price in yesPrice with no complement; a user_order's absent status is derived (remaining > 0
 * resting; else last_update_reason Trade executed, other reasons canceled; no reason: fills ->
 * executed); order_source / order_reason kept; the ticker's settlement mark read; every missing or
 * malformed field gives MALFORMED naming it; Predictions frames on the same decoder keep '' for
 * the Margin-only fields.
 * Method: frames shaped as the simulator sends them (src/sim/server/ws/margin-feed.ts) through a
 * FrameDecoder with venue 'margin'; then variants with fields removed or broken.
 */

import { describe, expect, it } from 'vitest';
import { CENTICENTS_INVALID, COUNT_INVALID, PRICE_INVALID } from '../../../src/core/index.ts';
import { MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { MarketRegistry } from '../../../src/market/index.ts';

const TICKER = 'KXBTCPERP';

function decoder(venue: 'margin' | 'predictions' = 'margin'): FrameDecoder {
  const tickers = new MarketRegistry();
  tickers.add(TICKER);
  return new FrameDecoder(tickers, venue);
}

function decode(d: FrameDecoder, text: string): MessageKind {
  return d.decode(Buffer.from(text, 'utf8'), 0, Buffer.byteLength(text));
}

const frame = (type: string, msg: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ type, sid: 5, msg, ...extra });

function without(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

const USER_ORDER = {
  order_id: 'o-1', user_id: 'u-1', client_order_id: 'c-1', ticker: TICKER, side: 'ask', price: '100.0100', fill_count: '2.00',
  remaining_count: '1.00', status: 'resting', created_ts_ms: 1_700_000_000_000, last_updated_ts_ms: 1_700_000_000_500,
  self_trade_prevention_type: 'taker_at_cross', subaccount_number: 0, exchange_index: 0, order_source: 'user',
};
const FILL = {
  trade_id: 't-1', order_id: 'o-1', market_ticker: TICKER, is_taker: true, side: 'bid', ts_ms: 1_700_000_000_900, price: '100000.0100',
  count: '3.00', fee_cost: '0.0175', post_position: '-2.00', client_order_id: 'c-1', subaccount: 2,
};
const TRADE = { trade_id: 't-9', market_ticker: TICKER, price: '99.5000', count: '4.00', taker_side: 'ask', ts_ms: 1_700_000_001_000 };
const TICKER_MSG = {
  market_ticker: TICKER, price: '100.0000', bid: '99.9900', ask: '100.0100', bid_size_fp: '3.00', ask_size_fp: '5.00', last_trade_size_fp: '1.00',
  volume: 10, volume_notional_value_dollars: '1000.0000', open_interest: 4, open_interest_notional_value_dollars: '400.0000',
  reference_price: { price: '100.0000', ts_ms: 1 }, settlement_mark_price: { price: '100.0500', ts_ms: 1_700_000_000_000 },
  funding_rate: { rate: 0.0001, next_funding_time_ms: 2, ts_ms: 3 }, ts_ms: 1_700_000_002_000,
};

describe('Margin user_order', () => {
  it('decodes an ask as sell YES at its price, with order_source and the venue status', () => {
    const d = decoder();
    expect(decode(d, frame('user_order', USER_ORDER))).toBe(MessageKind.USER_ORDER);
    const r = d.userOrder;
    expect({
      sid: r.sid, orderId: r.orderId, userId: r.userId, ticker: r.ticker, status: r.status, bookSide: r.bookSide, outcomeSide: r.outcomeSide,
      yesPrice: r.yesPrice, fillCount: r.fillCount, remainingCount: r.remainingCount, initialCount: r.initialCount, clientOrderId: r.clientOrderId,
      subaccount: r.subaccount, exchangeIndex: r.exchangeIndex, orderSource: r.orderSource, orderReason: r.orderReason, createdTsMs: r.createdTsMs,
      lastUpdatedTsMs: r.lastUpdatedTsMs, stp: r.selfTradePreventionType, expirationTsMs: r.expirationTsMs, takerFees: r.takerFees,
    }).toEqual({
      sid: 5, orderId: 'o-1', userId: 'u-1', ticker: TICKER, status: 'resting', bookSide: 'ask', outcomeSide: 'no', yesPrice: 1_000_100,
      fillCount: 200, remainingCount: 100, initialCount: 300, clientOrderId: 'c-1', subaccount: 0, exchangeIndex: 0, orderSource: 'user',
      orderReason: '', createdTsMs: 1_700_000_000_000, lastUpdatedTsMs: 1_700_000_000_500, stp: 'taker_at_cross', expirationTsMs: -1,
      takerFees: CENTICENTS_INVALID,
    });
    expect(decode(d, frame('user_order', { ...USER_ORDER, side: 'bid', order_source: 'system', order_reason: 'liquidation' }))).toBe(MessageKind.USER_ORDER);
    expect([r.bookSide, r.outcomeSide, r.orderSource, r.orderReason]).toEqual(['bid', 'yes', 'system', 'liquidation']);
  });

  it.each([
    ['remaining > 0: resting', { remaining_count: '1.00' }, 'resting'],
    ['done by Trade: executed', { remaining_count: '0.00', last_update_reason: 'Trade' }, 'executed'],
    ['done by a cancel: canceled', { remaining_count: '0.00', last_update_reason: 'MarginCancel' }, 'canceled'],
    ['no reason, fills: executed', { remaining_count: '0.00', fill_count: '3.00' }, 'executed'],
    ['no reason, no fills: canceled', { remaining_count: '0.00', fill_count: '0.00' }, 'canceled'],
  ])('status absent, %s', (_name, fields, status) => {
    const d = decoder();
    expect(decode(d, frame('user_order', { ...without(USER_ORDER, 'status'), ...fields }))).toBe(MessageKind.USER_ORDER);
    expect(d.userOrder.status).toBe(status);
  });

  it.each([
    ['order_id', without(USER_ORDER, 'order_id')],
    ['ticker', without(USER_ORDER, 'ticker')],
    ['ticker', { ...without(USER_ORDER, 'ticker'), market_ticker: TICKER }],
    ['side', without(USER_ORDER, 'side')],
    ['side', { ...USER_ORDER, side: 'yes' }],
    ['price', without(USER_ORDER, 'price')],
    ['price', { ...USER_ORDER, price: '100.00001' }],
    ['price', { ...USER_ORDER, price: 100 }],
    ['fill_count', without(USER_ORDER, 'fill_count')],
    ['fill_count', { ...USER_ORDER, fill_count: '2.005' }],
    ['remaining_count', without(USER_ORDER, 'remaining_count')],
    ['remaining_count', { ...USER_ORDER, remaining_count: '-1.00' }],
    ['status', { ...USER_ORDER, status: 'open' }],
    ['order_source', { ...USER_ORDER, order_source: 1 }],
    ['subaccount_number', { ...USER_ORDER, subaccount_number: -2 }],
    ['created_ts_ms', { ...USER_ORDER, created_ts_ms: 'now' }],
  ])('MALFORMED (%s) for a bad field', (reason, msg) => {
    const d = decoder();
    expect(decode(d, frame('user_order', msg))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });

  it('Predictions user_order frames keep the Margin-only fields empty', () => {
    const d = decoder('predictions');
    const text = frame('user_order', {
      order_id: 'o-2', ticker: TICKER, status: 'resting', side: 'yes', yes_price_dollars: '0.4200', fill_count_fp: '0.00', remaining_count_fp: '1.00',
    });
    expect(decode(d, text)).toBe(MessageKind.USER_ORDER);
    expect([d.userOrder.orderSource, d.userOrder.orderReason, d.userOrder.yesPrice]).toEqual(['', '', 4_200]);
  });
});

describe('Margin fill', () => {
  it('decodes a bid as buy YES at its price, fee and signed post_position', () => {
    const d = decoder();
    expect(decode(d, frame('fill', FILL))).toBe(MessageKind.FILL);
    const r = d.fill;
    expect([r.sid, r.tradeId, r.orderId, r.marketTicker, r.isTaker, r.bookSide, r.outcomeSide, r.yesPrice, r.count, r.feeCost, r.postPosition, r.clientOrderId, r.subaccount, r.tsMs, r.action]).toEqual([
      5, 't-1', 'o-1', TICKER, true, 'bid', 'yes', 1_000_000_100, 300, 175, -200, 'c-1', 2, 1_700_000_000_900, '',
    ]);
    expect(decode(d, frame('fill', { ...without(without(FILL, 'client_order_id'), 'subaccount'), side: 'ask' }))).toBe(MessageKind.FILL);
    expect([r.bookSide, r.outcomeSide, r.clientOrderId, r.subaccount]).toEqual(['ask', 'no', '', -1]);
  });

  it.each([
    ['trade_id', without(FILL, 'trade_id')],
    ['order_id', without(FILL, 'order_id')],
    ['market_ticker', without(FILL, 'market_ticker')],
    ['is_taker', without(FILL, 'is_taker')],
    ['side', { ...FILL, side: 'no' }],
    ['price', without(FILL, 'price')],
    ['price', { ...FILL, price: '1.2.3' }],
    ['count', without(FILL, 'count')],
    ['count', { ...FILL, count: '-3.00' }],
    ['fee_cost', without(FILL, 'fee_cost')],
    ['fee_cost', { ...FILL, fee_cost: '0.0000001' }],
    ['post_position', without(FILL, 'post_position')],
    ['post_position', { ...FILL, post_position: '-2.001' }],
    ['ts_ms', without(FILL, 'ts_ms')],
    ['subaccount', { ...FILL, subaccount: 'a' }],
  ])('MALFORMED (%s) for a bad field', (reason, msg) => {
    const d = decoder();
    expect(decode(d, frame('fill', msg))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });
});

describe('Margin trade', () => {
  it('decodes taker_side ask as a taker selling YES at the price, no complement', () => {
    const d = decoder();
    expect(decode(d, frame('trade', TRADE, { seq: 9 }))).toBe(MessageKind.TRADE);
    const r = d.trade;
    expect([r.sid, r.seq, r.tradeId, r.marketTicker, r.yesPrice, r.noPrice, r.count, r.takerBookSide, r.takerOutcomeSide, r.tsMs]).toEqual([
      5, 9, 't-9', TICKER, 995_000, PRICE_INVALID, 400, 'ask', 'no', 1_700_000_001_000,
    ]);
  });

  it.each([
    ['trade_id', without(TRADE, 'trade_id')],
    ['price', without(TRADE, 'price')],
    ['price', { ...TRADE, price: '99.50005' }],
    ['count', { ...TRADE, count: 4 }],
    ['taker_side', without(TRADE, 'taker_side')],
    ['taker_side', { ...TRADE, taker_side: 'yes' }],
    ['ts_ms', without(TRADE, 'ts_ms')],
  ])('MALFORMED (%s) for a bad field', (reason, msg) => {
    const d = decoder();
    expect(decode(d, frame('trade', msg))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });
});

describe('Margin ticker', () => {
  it('decodes last price, bid/ask, sizes and the settlement mark, as ticker or margin_ticker', () => {
    for (const type of ['ticker', 'margin_ticker']) {
      const d = decoder();
      expect(decode(d, frame(type, TICKER_MSG, { seq: 4 }))).toBe(MessageKind.MARGIN_TICKER);
      const r = d.marginTicker;
      expect([r.sid, r.seq, r.marketTicker, r.marketIndex, r.lastPrice, r.bid, r.ask, r.bidSize, r.askSize, r.markPrice, r.markTsMs, r.tsMs]).toEqual([
        5, 4, TICKER, 0, 1_000_000, 999_900, 1_000_100, 300, 500, 1_000_500, 1_700_000_000_000, 1_700_000_002_000,
      ]);
    }
  });

  it('an absent mark is PRICE_INVALID; an unknown market has index -1; an empty side is 0', () => {
    const d = decoder();
    expect(decode(d, frame('ticker', { ...without(TICKER_MSG, 'settlement_mark_price'), market_ticker: 'KXNEWPERP', bid: '0.0000' }))).toBe(MessageKind.MARGIN_TICKER);
    const r = d.marginTicker;
    expect([r.markPrice, r.markTsMs, r.marketIndex, r.marketTicker, r.bid]).toEqual([PRICE_INVALID, -1, -1, 'KXNEWPERP', 0]);
    expect(decode(d, frame('ticker', without(without(TICKER_MSG, 'bid_size_fp'), 'ask_size_fp')))).toBe(MessageKind.MARGIN_TICKER);
    expect([r.bidSize, r.askSize, r.markPrice]).toEqual([COUNT_INVALID, COUNT_INVALID, 1_000_500]);
  });

  it.each([
    ['market_ticker', without(TICKER_MSG, 'market_ticker')],
    ['price', without(TICKER_MSG, 'price')],
    ['bid', without(TICKER_MSG, 'bid')],
    ['ask', { ...TICKER_MSG, ask: '100.00005' }],
    ['bid_size_fp', { ...TICKER_MSG, bid_size_fp: 3 }],
    ['ts_ms', without(TICKER_MSG, 'ts_ms')],
    ['settlement_mark_price', { ...TICKER_MSG, settlement_mark_price: '100.05' }],
    ['settlement_mark_price', { ...TICKER_MSG, settlement_mark_price: { price: 'x', ts_ms: 1 } }],
    ['settlement_mark_price', { ...TICKER_MSG, settlement_mark_price: { price: '100.05', ts_ms: -1 } }],
  ])('MALFORMED (%s) for a bad field', (reason, msg) => {
    const d = decoder();
    expect(decode(d, frame('ticker', msg))).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });

  it('ticker is not decoded on Predictions; Predictions-only types are UNKNOWN on Margin', () => {
    const predictions = decoder('predictions');
    expect(decode(predictions, frame('ticker', TICKER_MSG))).toBe(MessageKind.UNKNOWN);
    const margin = decoder();
    expect(decode(margin, frame('market_position', { market_ticker: TICKER }))).toBe(MessageKind.UNKNOWN);
    expect(margin.unknownType).toBe('market_position');
  });
});
