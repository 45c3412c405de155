/**
 * Goal: at 5,000 markets the status line (plain and JSON) and the terminal table stay readable:
 * totals, the top positions by |PnL| with a count of the rest, the most active markets, the write
 * budget and held intents, denies by code and (quoting on) the RFQ counters; never a row or a
 * field per market.
 * Method: a 5,000-market RuntimeStatus built the way status() builds it (topPositions over 5,000
 * positions, two passes of ScaleStatus.walkActivity over 5,000 books, ScaleStatus.budget over a
 * real RateBudget), rendered by statusText, statusJson and renderStatusTable; the activity walk in
 * slices over fake book slots.
 */

import { describe, expect, it } from 'vitest';
import type { OrderBook } from '../../src/book/index.ts';
import { RateBudget } from '../../src/risk/index.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';
import { ScaleStatus, TOP_ROWS, topPositions, type BookSlots } from '../../src/runtime/scale-status.ts';
import { statusJson, statusText } from '../../src/runtime/status-line.ts';
import { POSITION_ROWS_MAX, renderStatusTable } from '../../src/runtime/status-table.ts';

const MARKETS = 5_000;
/** Lines the table may take whatever the market count: sections, header, POSITION_ROWS_MAX rows, the "more" lines. */
const TABLE_LINES_MAX = 16 + POSITION_ROWS_MAX + 2;

interface FakeBook {
  ticker: string;
  changesApplied: number;
}

/** Book slots as a BookStore keeps them: by index, a removed market's slot left empty. */
function slotsOf(books: readonly (FakeBook | undefined)[]): BookSlots {
  return { get slotCount() { return books.length; }, at: (index) => books[index] as unknown as OrderBook | undefined };
}

function scaleStatus(rfqOn: boolean): RuntimeStatus {
  // Position i: PnL grows with i and alternates sign, so the top 5 by |PnL| are the last five.
  const positions = Array.from({ length: MARKETS }, (_, i) => ({ subaccount: 1, ticker: `KXM-${i}`, position: 100, pnlMicro: (i % 2 === 0 ? 1 : -1) * i * 1_000 }));
  // Book i changed i times between the two readings, one second apart: the most active are the last.
  const books = Array.from({ length: MARKETS }, (_, i) => ({ ticker: `KXM-${i}`, changesApplied: 0 }));
  const scale = new ScaleStatus();
  scale.walkActivity([slotsOf(books)], 1_000, MARKETS + 1);
  for (let i = 0; i < MARKETS; i++) books[i].changesApplied = i;
  scale.walkActivity([slotsOf(books)], 2_000, MARKETS + 1);
  const mostActive = scale.mostActive;
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

  it('most active across passes: a market added later counts from its first reading; a removed market leaves the others alone', () => {
    const books: (FakeBook | undefined)[] = Array.from({ length: 10 }, (_, i) => ({ ticker: `KXA-${i}`, changesApplied: 0 }));
    const scale = new ScaleStatus();
    const pass = (nowMs: number): string[] => {
      scale.walkActivity([slotsOf(books)], nowMs, 1_000);
      return scale.mostActive.map((row) => `${row.ticker}:${row.changesPerSecond}`);
    };
    expect(pass(1_000)).toEqual([]); // a first reading has no rate
    books.push({ ticker: 'KXA-new', changesApplied: 500 }); // its changes before it was first read do not count
    for (const book of books) book!.changesApplied += 10;
    books[3]!.changesApplied += 90;
    expect(pass(2_000)).toEqual(['KXA-3:100', 'KXA-0:10', 'KXA-1:10', 'KXA-2:10', 'KXA-4:10']);
    books[10]!.changesApplied += 40;
    expect(pass(3_000)).toEqual(['KXA-new:40']);
    books[0] = undefined; // a market removed: its slot empties, the others stay where they were
    books[3]!.changesApplied += 7;
    expect(pass(4_000)).toEqual(['KXA-3:7']);
    books[0] = { ticker: 'KXA-0b', changesApplied: 900 }; // another market in the slot: counted from its first reading
    expect(pass(5_000)).toEqual([]);
  });

  it('the walk goes a slice per step: the top list changes only when a pass ends, each book rated over its own interval', () => {
    const predictions: FakeBook[] = Array.from({ length: 7 }, (_, i) => ({ ticker: `KXP-${i}`, changesApplied: 0 }));
    const margin: FakeBook[] = Array.from({ length: 3 }, (_, i) => ({ ticker: `KXM-${i}`, changesApplied: 0 }));
    const stores = [slotsOf(predictions), slotsOf(margin)];
    const scale = new ScaleStatus();
    // 10 slots, 4 a step: a pass is three steps (slots 0-3; 4-6 and the second store's 0; its 1-2), the third publishes.
    for (let step = 0; step < 3; step++) scale.walkActivity(stores, 1_000, 4);
    expect(scale.mostActive).toEqual([]); // first readings: no rate yet
    predictions[1]!.changesApplied = 30; // read again in the next step, 1 s after its first reading
    margin[2]!.changesApplied = 20; // read again in the third step, 4 s after its first reading
    scale.walkActivity(stores, 2_000, 4);
    expect(scale.mostActive).toEqual([]); // the pass has not ended
    scale.walkActivity(stores, 3_000, 4);
    expect(scale.mostActive).toEqual([]);
    scale.walkActivity(stores, 5_000, 4); // ends the pass
    expect(scale.mostActive).toEqual([{ ticker: 'KXP-1', changesPerSecond: 30 }, { ticker: 'KXM-2', changesPerSecond: 5 }]);
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
