/**
 * Goal: at 5,000 markets the status line (plain and JSON) and the terminal table stay readable:
 * totals, the top positions by |PnL| with a count of the rest, the most active markets, the write
 * budget and held intents, denies by code and (quoting on) the RFQ counters; never a row or a
 * field per market.
 * Method: a 5,000-market RuntimeStatus built the way status() builds it (topPositions over 5,000
 * positions, ScaleStatus.mostActive over 5,000 books read twice, ScaleStatus.budget over a real
 * RateBudget), rendered by statusText, statusJson and renderStatusTable.
 */

import { describe, expect, it } from 'vitest';
import type { OrderBook } from '../../src/book/index.ts';
import { RateBudget } from '../../src/risk/index.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';
import { ScaleStatus, TOP_ROWS, topPositions } from '../../src/runtime/scale-status.ts';
import { statusJson, statusText } from '../../src/runtime/status-line.ts';
import { POSITION_ROWS_MAX, renderStatusTable } from '../../src/runtime/status-table.ts';

const MARKETS = 5_000;
/** Lines the table may take whatever the market count: sections, header, POSITION_ROWS_MAX rows, the "more" lines. */
const TABLE_LINES_MAX = 16 + POSITION_ROWS_MAX + 2;

function scaleStatus(rfqOn: boolean): RuntimeStatus {
  // Position i: PnL grows with i and alternates sign, so the top 5 by |PnL| are the last five.
  const positions = Array.from({ length: MARKETS }, (_, i) => ({ subaccount: 1, ticker: `KXM-${i}`, position: 100, pnlMicro: (i % 2 === 0 ? 1 : -1) * i * 1_000 }));
  // Book i changed i times between the two readings, one second apart: the most active are the last.
  const books = Array.from({ length: MARKETS }, (_, i) => ({ ticker: `KXM-${i}`, changesApplied: 0 }));
  const scale = new ScaleStatus();
  scale.mostActive([books as unknown as OrderBook[]], 1_000);
  for (let i = 0; i < MARKETS; i++) books[i].changesApplied = i;
  const mostActive = scale.mostActive([books as unknown as OrderBook[]], 2_000);
  const budget = new RateBudget(10, 50, 0.2, 20, 0);
  scale.budget(budget, { held: 0, heldSent: 0, heldDropped: 0, batchesSent: 0, batchedOrders: 0 }, 0, 0);
  for (let i = 0; i < 30; i++) budget.tryTakeWrite(1, false, 1_000);
  const budgetStatus = scale.budget(budget, { held: 3, heldSent: 17, heldDropped: 2, batchesSent: 4, batchedOrders: 36 }, 3, 1_000);
  return {
    booksSynced: MARKETS, booksTotal: MARKETS, openOrders: 2_000, ordersSent: 90_000, fills: 700,
    positions: topPositions(positions, TOP_ROWS), positionsTotal: MARKETS, pnlMicro: 5_000_000,
    tickToTradeUsP50: 20, tickToTradeUsP99: 90, tickToTradeCount: 90_000,
    denies: { RATE_LIMITED: 40, POST_ONLY_CROSS: 3 }, feedState: 'open',
    strategies: [{ id: 'mm', status: 'running' }], killSwitch: null,
    budget: budgetStatus, mostActive,
    rfq: rfqOn ? { rfqsSeen: 120, quotesSent: 80, quotesRejected: 1, accepted: 9, confirmed: 8, executed: 7, cancelled: 30, denied: 5, open: 12 } : null,
  };
}

describe('status at 5,000 markets', () => {
  it('ranks the top positions by |PnL| and the most active markets, five each', () => {
    const status = scaleStatus(true);
    expect(status.positions.map((p) => p.ticker)).toEqual(['KXM-4999', 'KXM-4998', 'KXM-4997', 'KXM-4996', 'KXM-4995']);
    expect(status.mostActive).toEqual([4999, 4998, 4997, 4996, 4995].map((i) => ({ ticker: `KXM-${i}`, changesPerSecond: i })));
    expect(status.budget).toEqual({ writeTokens: 20, writeCapacity: 50, writePerSecond: 10, writeSpentPerSecond: 30, held: 3, heldSent: 17, heldDropped: 2, batchesSent: 4, batchedOrders: 36 });
  });

  it('most active across readings: a market added later counts from its first reading; a market removed shifts the rest for one reading only', () => {
    const books = Array.from({ length: 10 }, (_, i) => ({ ticker: `KXA-${i}`, changesApplied: 0 }));
    const scale = new ScaleStatus();
    const read = (nowMs: number) => scale.mostActive([books as unknown as OrderBook[]], nowMs).map((row) => `${row.ticker}:${row.changesPerSecond}`);
    read(1_000);
    books.push({ ticker: 'KXA-new', changesApplied: 500 }); // its changes before it was first read do not count
    for (const book of books) book.changesApplied += 10;
    books[3]!.changesApplied += 90;
    expect(read(2_000)).toEqual(['KXA-3:100', 'KXA-0:10', 'KXA-1:10', 'KXA-2:10', 'KXA-4:10']);
    books[10]!.changesApplied += 40;
    expect(read(3_000)).toEqual(['KXA-new:40']);
    books.splice(0, 1); // a market removed: the others' positions move
    books[2]!.changesApplied += 7; // KXA-3
    expect(read(4_000)).toEqual([]);
    books[2]!.changesApplied += 7;
    expect(read(5_000)).toEqual(['KXA-3:7']);
  });

  it('the same walk counts the books and the synced ones, over every store, at every reading (the first too)', () => {
    const predictions = Array.from({ length: 7 }, (_, i) => ({ ticker: `KXP-${i}`, changesApplied: 0, synced: i % 3 !== 0 }));
    const margin = Array.from({ length: 3 }, (_, i) => ({ ticker: `KXM-${i}`, changesApplied: 0, synced: i === 1 }));
    const scale = new ScaleStatus();
    scale.mostActive([predictions as unknown as OrderBook[], margin as unknown as OrderBook[]], 1_000);
    expect([scale.booksTotal, scale.booksSynced]).toEqual([10, 5]); // 1, 2, 4, 5 of KXP and KXM-1
    predictions[0]!.synced = true;
    margin.pop();
    scale.mostActive([predictions as unknown as OrderBook[], margin as unknown as OrderBook[]], 2_000);
    expect([scale.booksTotal, scale.booksSynced]).toEqual([9, 6]);
  });

  it('the plain line carries totals, the budget, the top markets and the RFQ counters, not one field per market', () => {
    const text = statusText(scaleStatus(true), 60);
    expect(text).toContain('books 5000/5000 | open 2000 | sent 90000');
    expect(text).toContain('pos KXM-4999/1 +1.00 KXM-4998/1 +1.00 KXM-4997/1 +1.00 KXM-4996/1 +1.00 KXM-4995/1 +1.00 +4995 more');
    expect(text).toContain('denies RATE_LIMITED=40 POST_ONLY_CROSS=3');
    expect(text).toContain(' | budget 20/50 tok 30/s of 10/s held 3 sent 17 dropped 2 batches 4');
    expect(text).toContain(' | active KXM-4999 4999/s KXM-4998 4998/s KXM-4997 4997/s KXM-4996 4996/s KXM-4995 4995/s');
    expect(text).toContain(' | rfq seen 120 quoted 80 accepted 9 executed 7 denied 5');
    expect(text.match(/KXM-/g)!.length).toBe(2 * TOP_ROWS);
    expect(statusText(scaleStatus(false), 60)).not.toContain('rfq');
  });

  it('the JSON line carries the same, with the positions total', () => {
    const json = JSON.parse(statusJson(scaleStatus(true), 60));
    expect(json.positions).toHaveLength(TOP_ROWS);
    expect(json.positionsTotal).toBe(MARKETS);
    expect(json.budget).toEqual({ writeTokens: 20, writeCapacity: 50, writePerSecond: 10, writeSpentPerSecond: 30, held: 3, heldSent: 17, heldDropped: 2, batchesSent: 4, batchedOrders: 36 });
    expect(json.mostActive).toHaveLength(TOP_ROWS);
    expect(json.rfq).toEqual({ rfqsSeen: 120, quotesSent: 80, quotesRejected: 1, accepted: 9, confirmed: 8, executed: 7, cancelled: 30, denied: 5, open: 12 });
    expect(JSON.parse(statusJson(scaleStatus(false), 60)).rfq).toBeNull();
    expect(statusJson(scaleStatus(true), 60).length).toBeLessThan(3_000);
  });

  it('the table stays under a fixed height: top positions, "… and N more", budget, active, rfq', () => {
    const view = { elapsedSec: 60, widthColumns: 160, strategySubaccounts: { mm: 1 }, sessions: [] };
    const lines = renderStatusTable(scaleStatus(true), view);
    expect(lines.length).toBeLessThanOrEqual(TABLE_LINES_MAX);
    const text = lines.join('\n');
    expect(text).toContain('budget    tokens 20/50  spent 30/s of 10/s  held 3  sent 17  dropped 2  batches 4 (36 orders)');
    expect(text).toContain('active    KXM-4999 4999/s  KXM-4998 4998/s  KXM-4997 4997/s  KXM-4996 4996/s  KXM-4995 4995/s');
    expect(text).toContain('rfq       seen 120  quoted 80  accepted 9  executed 7  denied 5  rejected 1  open 12');
    expect(text).toContain('denies    RATE_LIMITED 40  POST_ONLY_CROSS 3');
    expect(lines.filter((line) => line.startsWith('mm '))).toHaveLength(TOP_ROWS);
    expect(lines.at(-1)).toBe(`… and ${MARKETS - TOP_ROWS} more positions (top ${TOP_ROWS} by |PnL| shown)`);
    expect(renderStatusTable(scaleStatus(false), view).some((line) => line.startsWith('rfq'))).toBe(false);
  });

  it('the table ranks and cuts an uncut positions list too', () => {
    const status = scaleStatus(false);
    const all = Array.from({ length: 50 }, (_, i) => ({ subaccount: 1, ticker: `KXU-${i}`, position: 100, pnlMicro: i }));
    const lines = renderStatusTable({ ...status, positions: all, positionsTotal: undefined }, { elapsedSec: 1, widthColumns: 160, strategySubaccounts: { mm: 1 }, sessions: [] });
    expect(lines.filter((line) => line.startsWith('mm ')).map((line) => line.split(/ +/)[3])).toEqual(['KXU-49', 'KXU-48', 'KXU-47', 'KXU-46', 'KXU-45']);
    expect(lines.at(-1)).toBe('… and 45 more positions (top 5 by |PnL| shown)');
  });
});
