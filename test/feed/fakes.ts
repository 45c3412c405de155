/**
 * Test helpers (not tests): a command sink that records what the subscription manager writes, a
 * manual clock, a recording logger, and builders for control replies.
 */

import { ControlRecord } from '../../src/feed/decoders/control.ts';
import type { FeedLogger } from '../../src/feed/feed-logger.ts';
import type { CommandSink } from '../../src/feed/subscriptions.ts';

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
