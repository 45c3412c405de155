/**
 * Goal: the status line and summary formatting show what an operator needs (books, orders, fills,
 * positions, PnL, tick-to-trade percentiles, denies by name) in fixed-point text, never floats
 * for money or counts, one line on a terminal and JSON otherwise.
 * Method: formatting calls on a hand-built RuntimeStatus; a fake TTY stream for the printer.
 */

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StatusPrinter, formatMicroDollars, statusJson, statusText } from '../../src/runtime/status-line.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';

const status: RuntimeStatus = {
  booksSynced: 1,
  booksTotal: 2,
  openOrders: 3,
  ordersSent: 10,
  fills: 4,
  positions: [{ subaccount: 1, ticker: 'KXA', position: -250, pnlMicro: -12_345 }],
  pnlMicro: 1_234_567,
  tickToTradeUsP50: 31.24,
  tickToTradeUsP99: 812.9,
  tickToTradeCount: 100,
  denies: { POST_ONLY_CROSS: 2 },
  feedState: 'open',
  strategies: [{ id: 'mm', status: 'running' }],
  killSwitch: null,
};

describe('status formatting', () => {
  it('formats micro-dollars as dollars with 4 decimals, sign kept', () => {
    expect(formatMicroDollars(1_234_567)).toBe('$1.2346');
    expect(formatMicroDollars(-12_345)).toBe('-$0.0123');
    expect(formatMicroDollars(0)).toBe('$0.0000');
  });

  it('renders one compact human line', () => {
    expect(statusText(status, 7)).toBe('7s | books 1/2 | open 3 | sent 10 | fills 4 | pos KXA/1 -2.50 | PnL $1.2346 | t2t p50 31.2µs p99 813µs | denies POST_ONLY_CROSS=2');
  });

  it('renders a JSON line with fixed-point strings', () => {
    expect(JSON.parse(statusJson(status, 7))).toEqual({
      event: 'status', elapsedSec: 7, books: { synced: 1, total: 2 }, openOrders: 3, ordersSent: 10, fills: 4,
      positions: [{ ticker: 'KXA', subaccount: 1, position: '-2.50', pnl: '-$0.0123' }], pnl: '$1.2346',
      tickToTradeUs: { p50: 31.24, p99: 812.9, count: 100 }, denies: { POST_ONLY_CROSS: 2 }, feed: 'open', strategies: [{ id: 'mm', status: 'running' }], killSwitch: null,
    });
  });

  it('shows frame received -> first byte handed to socket.write beside the tick-to-trade, once an order was written', () => {
    const written: RuntimeStatus = { ...status, firstByte: { p50Us: 21.04, p99Us: 95.6, count: 80 } };
    expect(statusText(written, 7)).toContain('| t2t p50 31.2µs p99 813µs (first byte p50 21.0µs p99 95.6µs) |');
    expect(JSON.parse(statusJson(written, 7)).firstByteUs).toEqual({ p50: 21.04, p99: 95.6, count: 80 });
    const none: RuntimeStatus = { ...status, firstByte: { p50Us: 0, p99Us: 0, count: 0 } };
    expect(statusText(none, 7)).toContain('| t2t p50 31.2µs p99 813µs |');
  });

  it('leads with an engaged kill switch, its source, reason and time', () => {
    const killed: RuntimeStatus = { ...status, killSwitch: { reason: 'SIGUSR2', source: 'operator', sinceMs: Date.UTC(2026, 10, 24, 12) } };
    expect(statusText(killed, 7).startsWith('KILL SWITCH (operator: SIGUSR2) | 7s |')).toBe(true);
    expect(JSON.parse(statusJson(killed, 7)).killSwitch).toEqual({ reason: 'SIGUSR2', source: 'operator', since: '2026-11-24T12:00:00.000Z' });
  });

  it('rewrites one line on a terminal and prints JSON lines otherwise', () => {
    const chunks: string[] = [];
    const sink = Object.assign(new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }), { isTTY: true, columns: 40 });
    const tty = new StatusPrinter(sink as unknown as NodeJS.WriteStream);
    tty.print(status, 1);
    tty.finish();
    expect(chunks[0].startsWith('\r\x1b[2K7'.slice(0, 5))).toBe(true);
    expect(chunks[0].length).toBeLessThanOrEqual('\r\x1b[2K'.length + 40);
    expect(chunks[1]).toBe('\n');
    const plain: string[] = [];
    const pipe = new StatusPrinter(new Writable({ write(chunk, _encoding, done) { plain.push(String(chunk)); done(); } }) as unknown as NodeJS.WriteStream);
    pipe.print(status, 2);
    expect(JSON.parse(plain[0]).event).toBe('status');
  });
});
