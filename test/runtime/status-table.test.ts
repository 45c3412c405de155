/**
 * Goal: the terminal table shows what an operator needs (books, orders, fills, positions and PnL
 * per strategy, tick-to-trade, denies by code, feed and FIX sessions, event-loop stall, worker
 * queue), fits the terminal's width, keeps a bounded height, and the printer redraws it in place.
 * Method: renderStatusTable on hand-built RuntimeStatus values (a pure function); the printer on a
 * fake TTY stream, checking the ANSI cursor movement between two prints.
 */

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { POSITION_ROWS_MAX, StatusTablePrinter, renderStatusTable } from '../../src/runtime/status-table.ts';
import { TOP_ROWS } from '../../src/runtime/scale-status.ts';
import type { StatusTableView } from '../../src/runtime/status-table.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';

const status: RuntimeStatus = {
  booksSynced: 1,
  booksTotal: 2,
  openOrders: 3,
  ordersSent: 10,
  fills: 4,
  positions: [
    { subaccount: 1, ticker: 'KXA', position: -250, pnlMicro: -12_345 },
    { subaccount: 1, ticker: 'KXB', position: 100, pnlMicro: 50_000 },
    { subaccount: 7, ticker: 'KXC', position: 300, pnlMicro: 0 },
  ],
  pnlMicro: 1_234_567,
  tickToTradeUsP50: 31.24,
  tickToTradeUsP99: 812.9,
  tickToTradeCount: 100,
  denies: { POST_ONLY_CROSS: 2, RATE_LIMITED: 5 },
  feedState: 'open',
  strategies: [{ id: 'mm', status: 'running' }, { id: 'taker', status: 'faulted' }],
  killSwitch: null,
  eventLoopStall: { samples: 50, p50Us: 12.5, p99Us: 457, maxUs: 2345 },
  workers: { queueDepth: 2, inFlight: 1, completed: 40, failed: 0, workerExits: 0, candleBatchesQueued: 0, candleRowsDropped: 0, portfolioAgeMs: -1 },
};

const view: StatusTableView = {
  elapsedSec: 12,
  widthColumns: 120,
  strategySubaccounts: { mm: 1, taker: 2 },
  sessions: [{ name: 'fix KalshiNR', state: 'active' }],
};

describe('renderStatusTable', () => {
  it('shows every section with its values', () => {
    const lines = renderStatusTable(status, view);
    const text = lines.join('\n');
    expect(lines[0]).toBe('trading 12s  books synced 1/2  feed open');
    expect(text).toContain('orders    open 3  sent 10  fills 4  PnL $1.2346');
    expect(text).toContain('t2t       p50 31.2µs  p99 813µs  (100 orders)');
    expect(text).toContain('denies    POST_ONLY_CROSS 2  RATE_LIMITED 5');
    expect(text).toContain('sessions  feed open  fix KalshiNR active');
    expect(text).toContain('loop      stall p50 12.5µs  p99 457µs  max 2345µs');
    expect(text).toContain('workers   queue 2  running 1  done 40  failed 0');
  });

  it('lists positions and PnL per strategy, by the strategy subaccount', () => {
    const rows = renderStatusTable(status, view).filter((line) => /^(mm|taker|-) /.test(line)).map((line) => line.split(/ {1,}/));
    expect(rows).toEqual([
      ['mm', 'running', '1', 'KXA', '-2.50', '-$0.0123'],
      ['mm', 'running', '1', 'KXB', '+1.00', '$0.0500'],
      ['taker', 'faulted', '2', '-', 'flat', '$0.0000'],
      // Subaccount 7 belongs to no strategy: shown, not lost.
      ['-', '-', '7', 'KXC', '+3.00', '$0.0000'],
    ]);
  });

  it('shows frame received -> first byte handed to socket.write under the tick-to-trade once an order was written', () => {
    const written = renderStatusTable({ ...status, firstByte: { p50Us: 21.04, p99Us: 95.6, count: 80 } }, view);
    const at = written.findIndex((line) => line.startsWith('t2t '));
    expect(written[at + 1]).toBe('  first byte p50 21.0µs  p99 95.6µs  (frame received -> handed to socket.write)');
    const none = renderStatusTable({ ...status, firstByte: { p50Us: 0, p99Us: 0, count: 0 } }, view).join('\n');
    expect(none).not.toContain('first byte');
  });

  it('says n/a, none and off for what has no value yet', () => {
    const empty: RuntimeStatus = { ...status, positions: [], pnlMicro: 0, tickToTradeCount: 0, denies: {}, strategies: [], eventLoopStall: { samples: 0, p50Us: 0, p99Us: 0, maxUs: 0 }, workers: null };
    const text = renderStatusTable(empty, { ...view, sessions: [] }).join('\n');
    expect(text).toContain('t2t       n/a');
    expect(text).toContain('denies    none');
    expect(text).toContain('loop      stall n/a');
    expect(text).toContain('workers   off');
    expect(text).toContain('sessions  feed open\n');
  });

  it('leads with an engaged kill switch', () => {
    const killed: RuntimeStatus = { ...status, killSwitch: { reason: 'SIGUSR2', source: 'operator', sinceMs: 0 } };
    expect(renderStatusTable(killed, view)[0]).toContain('*** KILL SWITCH (operator: SIGUSR2) ***');
  });

  it('cuts every line to the width, at any width', () => {
    for (const width of [20, 33, 40, 80, 200]) {
      const lines = renderStatusTable(status, { ...view, widthColumns: width });
      for (const line of lines) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(lines.some((line) => line.endsWith('…'))).toBe(width < 80);
    }
  });

  it('keeps a bounded height however many positions there are', () => {
    const positions = Array.from({ length: 100 }, (_, i) => ({ subaccount: 1, ticker: `KX${i}`, position: 100, pnlMicro: i }));
    const lines = renderStatusTable({ ...status, positions }, view);
    const few = renderStatusTable({ ...status, positions: positions.slice(0, 1) }, view);
    // TOP_ROWS position rows instead of one, and the line counting the rest.
    expect(lines.length).toBe(few.length + TOP_ROWS - 1 + 1);
    expect(lines.at(-1)).toBe(`… and ${100 - TOP_ROWS} more positions (top ${TOP_ROWS} by |PnL| shown)`);
  });

  it('counts hidden strategy rows when strategies alone overflow the rows', () => {
    const strategies = Array.from({ length: 30 }, (_, i) => ({ id: `s${i}`, status: 'running' }));
    const lines = renderStatusTable({ ...status, strategies }, view);
    expect(lines.filter((line) => /^s\d+ /.test(line)).length).toBeLessThan(POSITION_ROWS_MAX);
    expect(lines.at(-1)).toMatch(/^… \d+ more rows/);
  });
});

describe('StatusTablePrinter', () => {
  it('draws the table, then redraws it in place: cursor up over the last drawing, each line erased', () => {
    const chunks: string[] = [];
    const sink = Object.assign(new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }), { isTTY: true, columns: 100 });
    const printer = new StatusTablePrinter(sink as unknown as NodeJS.WriteStream, () => ({ strategySubaccounts: view.strategySubaccounts, sessions: view.sessions }));
    printer.print(status, 1);
    printer.print({ ...status, fills: 5 }, 2);
    printer.finish();
    expect(chunks.length).toBe(2); // one write per drawing
    const height = renderStatusTable(status, { ...view, widthColumns: 99 }).length;
    expect(chunks[0].startsWith('\x1b[2Ktrading 1s')).toBe(true);
    expect(chunks[1].startsWith(`\x1b[${height}A\r\x1b[2Ktrading 2s`)).toBe(true);
    expect(chunks[1]).toContain('fills 5');
    for (const chunk of chunks) {
      expect(chunk.split('\n').length - 1).toBe(height);
      expect(chunk.endsWith('\x1b[J')).toBe(true);
    }
  });
});
