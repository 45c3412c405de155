/**
 * Test helpers (not tests): a command sink that records what the subscription manager writes, a
 * manual clock, a recording logger, builders for control replies and frames, a scripted session.
 */

import { ControlRecord } from '../../src/feed/decoders/control.ts';
import type { FeedLogger } from '../../src/feed/feed-logger.ts';
import type { CommandSink } from '../../src/feed/subscriptions.ts';
import { ConnectionState, type FeedSession, type WsSessionOptions } from '../../src/feed/ws-session.ts';
import type { OrderBook } from '../../src/book/index.ts';

export interface SentCommand {
  id: number;
  cmd: string;
  params?: Record<string, unknown> & { channels?: string[]; market_tickers?: string[]; sids?: number[]; action?: string };
}

export class FakeSink implements CommandSink {
  isOpen = true;
  readonly sent: SentCommand[] = [];
  send(text: string): boolean {
    if (!this.isOpen) return false;
    this.sent.push(JSON.parse(text) as SentCommand);
    return true;
  }
  take(): SentCommand[] {
    return this.sent.splice(0, this.sent.length);
  }
}

export class TestClock {
  constructor(public ms = 1_800_000_000_000) {}
  nowMs = (): number => this.ms;
  advance(ms: number): number {
    this.ms += ms;
    return this.ms;
  }
}

export class RecordingLogger implements FeedLogger {
  readonly lines: { level: string; obj: object; msg?: string }[] = [];
  debug(obj: object, msg?: string): void {
    this.lines.push({ level: 'debug', obj, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }
  error(obj: object, msg?: string): void {
    this.lines.push({ level: 'error', obj, msg });
  }
  count(level: string): number {
    return this.lines.filter((line) => line.level === level).length;
  }
}

export function subscribed(id: number, channel: string, sid: number): ControlRecord {
  const record = new ControlRecord('subscribed');
  record.id = id;
  record.channel = channel;
  record.sid = sid;
  return record;
}

export function ok(id: number, sid = -1, seq = -1): ControlRecord {
  const record = new ControlRecord('ok');
  record.id = id;
  record.sid = sid;
  record.seq = seq;
  return record;
}

export function unsubscribedReply(id: number, sid: number): ControlRecord {
  const record = new ControlRecord('unsubscribed');
  record.id = id;
  record.sid = sid;
  return record;
}

export function errorReply(code: number, options: { id?: number; sid?: number; message?: string } = {}): ControlRecord {
  const record = new ControlRecord('error');
  record.id = options.id ?? -1;
  record.sid = options.sid ?? -1;
  record.code = code;
  record.message = options.message ?? `error ${code}`;
  return record;
}

/** Lets queued microtasks (the managers' coalesced flushes) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// ---- Feed-level fakes ------------------------------------------------------------------------


/** A session the test opens and drops by hand; records the commands the feed writes. */
export class FakeSession implements FeedSession {
  state: ConnectionState = ConnectionState.IDLE;
  readonly sent: SentCommand[] = [];
  readonly options: WsSessionOptions;
  started = 0;
  reconnects: string[] = [];
  constructor(options: WsSessionOptions) {
    this.options = options;
  }
  get isOpen(): boolean {
    return this.state === ConnectionState.OPEN;
  }
  start(): void {
    this.started++;
  }
  stop(): void {
    this.state = ConnectionState.CLOSED;
  }
  send(text: string): boolean {
    if (!this.isOpen) return false;
    this.sent.push(JSON.parse(text) as SentCommand);
    return true;
  }
  reconnect(reason: string): void {
    this.reconnects.push(reason);
  }
  onTick(_nowMs: number): void {}
  open(): void {
    this.state = ConnectionState.OPEN;
    this.options.handler.onState(this.state);
    this.options.handler.onOpen();
  }
  drop(): void {
    this.state = ConnectionState.RECONNECTING;
    this.options.handler.onClose(1006, 'test drop');
    this.options.handler.onState(this.state);
  }
  take(): SentCommand[] {
    return this.sent.splice(0, this.sent.length);
  }
}

/** A book's levels as [price, size] pairs: YES bids by YES price, NO bids by NO price (both ascending). */
export function bookLevels(book: OrderBook): { yes: [number, number][]; no: [number, number][] } {
  const yes: [number, number][] = [];
  const no: [number, number][] = [];
  for (let level = 0; level < book.grid.levelCount; level++) {
    const price = book.grid.priceAt(level);
    const bid = book.bidSizeAtLevel(level);
    const ask = book.askSizeAtLevel(level);
    if (bid > 0) yes.push([price, bid]);
    if (ask > 0) no.push([10_000 - price, ask]);
  }
  no.sort((a, b) => a[0] - b[0]);
  return { yes, no };
}

function dollars(price: number): string {
  return (price / 10_000).toFixed(4);
}
function contracts(count: number): string {
  return (count / 100).toFixed(2);
}

export function snapshotFrame(sid: number, seq: number, ticker: string, yes: [number, number][], no: [number, number][]): string {
  return JSON.stringify({
    type: 'orderbook_snapshot',
    sid,
    seq,
    msg: {
      market_ticker: ticker,
      market_id: '00000000-0000-0000-0000-000000000000',
      ...(yes.length > 0 ? { yes_dollars_fp: yes.map(([p, s]) => [dollars(p), contracts(s)]) } : {}),
      ...(no.length > 0 ? { no_dollars_fp: no.map(([p, s]) => [dollars(p), contracts(s)]) } : {}),
    },
  });
}

export function deltaFrame(sid: number, seq: number, ticker: string, side: 'yes' | 'no', price: number, delta: number): string {
  const sign = delta < 0 ? '-' : '';
  return `{"type":"orderbook_delta","sid":${sid},"seq":${seq},"msg":{"market_ticker":"${ticker}","market_id":"00000000-0000-0000-0000-000000000000","price_dollars":"${dollars(price)}","delta_fp":"${sign}${contracts(Math.abs(delta))}","side":"${side}","ts_ms":1800000000000}}`;
}
