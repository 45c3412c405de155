/**
 * The OMS journal as catalog rows: our orders (last known state), fills, and the position each
 * fill left (the venue's post-fill position when the fill carried one, else our running sum per
 * market and subaccount: bid adds, ask subtracts). Read with the OMS's own recover(), so the
 * journal has one reader. Owns the mapping to rows only.
 */

import { ORDER_STATE_NAMES, recover } from '../oms/index.ts';
import { utcDate, type Row } from './catalog-tables.ts';
import type { RowSink } from './recording-rows.ts';

export interface JournalRowCounts {
  orders: number;
  fills: number;
}

export function journalRows(journalPath: string, sink: RowSink, source: string): JournalRowCounts {
  const journal = recover(journalPath);
  for (const o of journal.orders) {
    const row: Row = [
      o.createdAtMs, o.lastEventMs, o.clientOrderId, o.orderId, o.side, o.price, o.totalCount, o.filledCount, o.remainingCount,
      ORDER_STATE_NAMES[o.state] ?? String(o.state), o.subaccount, o.strategyId, source, utcDate(o.createdAtMs), o.ticker,
    ];
    sink.add('orders', row);
  }
  const positions = new Map<string, number>();
  for (const f of journal.fills) {
    const date = utcDate(f.tsMs);
    sink.add('fills', [f.tsMs, f.tradeId, f.orderId, f.clientOrderId, f.side, f.price, f.count, f.feeCenticents, f.isTaker, f.subaccount, source, date, f.ticker]);
    const key = `${f.subaccount}|${f.ticker}`;
    const running = (positions.get(key) ?? 0) + (f.side === 'bid' ? f.count : -f.count);
    const position = f.postPosition ?? running;
    positions.set(key, position);
    sink.add('positions', [f.tsMs, f.subaccount, position, f.tradeId, source, date, f.ticker]);
  }
  return { orders: journal.orders.length, fills: journal.fills.length };
}
