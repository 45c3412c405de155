/**
 * Client order ids: unique per account forever (the venue answers 409 order_already_exists to a
 * reused id, even of a cancelled order: rest.md §2), so they are never random and never reused:
 *
 *     <prefix>-<session epoch ms, base 36>-<counter, decimal>      e.g. "mm1-mhc0x2ps-1042"
 *
 * The counter is monotonic within and across sessions: it is journaled with every intent and in the
 * session line, and a restarted runtime continues after the highest journaled value. The session
 * epoch is also made strictly greater than every journaled epoch, so even a journal that lost its
 * tail cannot lead to a reused id. This file owns the format and its parsing; it never persists.
 */

import { writeInteger } from '../core/index.ts';

const PREFIX_PATTERN = /^[A-Za-z0-9_]{1,16}$/;
const COUNTER_DIGITS_MAX = 16;
const DASH = 45;

export class ClientOrderIdError extends Error {
  readonly code: 'CLIENT_ORDER_ID_PREFIX_INVALID' = 'CLIENT_ORDER_ID_PREFIX_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ClientOrderIdError';
  }
}

/** Bytes an id takes at most: a 16-character prefix, two dashes, an epoch and a counter of up to 16 characters each. */
export const CLIENT_ORDER_ID_BYTES_MAX = 16 + 1 + 16 + 1 + 16;

export class ClientOrderIds {
  readonly prefix: string;
  readonly sessionEpochMs: number;
  /** "<prefix>-<epoch>-": every id of this session starts with it. */
  readonly head: string;
  /** "<prefix>-<epoch>-" as ASCII bytes: every id starts with them. */
  readonly #head: Buffer;
  /** next() writes the id here and makes its string from these bytes: one flat string, no concatenation. */
  readonly #scratch = Buffer.allocUnsafe(CLIENT_ORDER_ID_BYTES_MAX);
  #counter: number;

  /** `lastCounter` is the highest counter ever used (0 for a fresh journal); the next id uses lastCounter + 1. */
  constructor(prefix: string, sessionEpochMs: number, lastCounter: number) {
    if (!PREFIX_PATTERN.test(prefix)) throw new ClientOrderIdError(`client order id prefix must match ${PREFIX_PATTERN}, got ${JSON.stringify(prefix)}`);
    if (!Number.isSafeInteger(sessionEpochMs) || sessionEpochMs <= 0) throw new ClientOrderIdError(`session epoch must be a positive integer ms, got ${sessionEpochMs}`);
    if (!Number.isSafeInteger(lastCounter) || lastCounter < 0) throw new ClientOrderIdError(`last counter must be a non-negative integer, got ${lastCounter}`);
    this.prefix = prefix;
    this.sessionEpochMs = sessionEpochMs;
    this.head = `${prefix}-${sessionEpochMs.toString(36)}-`;
    this.#head = Buffer.from(this.head, 'latin1');
    this.#counter = lastCounter;
  }

  /** The next id; its counter is `this.counter` right after the call. */
  next(): string {
    return this.format(this.take());
  }

  /**
   * The next counter, its id left unmade: the OMS's orders keep the counter and make the string
   * only when something asks for it (a log, a person, a strategy that keeps ids as text); the
   * request and the journal write its bytes with writeInto.
   */
  take(): number {
    return ++this.#counter;
  }

  /** The id of this session with `counter`, made from its bytes in one piece. */
  format(counter: number): string {
    const end = this.writeInto(this.#scratch, 0, counter);
    return this.#scratch.toString('latin1', 0, end);
  }

  /**
   * The id with `counter` (one of this session's) as ASCII bytes at `at`, the bytes its string has:
   * the offset after them. The caller has CLIENT_ORDER_ID_BYTES_MAX bytes of room.
   */
  writeInto(out: Buffer, at: number, counter: number): number {
    const head = this.#head;
    out.set(head, at); // one copy: about half a byte loop's time for a head of 10-34 bytes
    return writeInteger(out, at + head.length, counter);
  }

  /** The highest counter used so far. */
  get counter(): number {
    return this.#counter;
  }
}

export interface ParsedClientOrderId {
  prefix: string;
  sessionEpochMs: number;
  counter: number;
}

/** Parses an id of ours; null for anything else (ids from other tools, UUIDs). */
export function parseClientOrderId(id: string): ParsedClientOrderId | null {
  const last = id.lastIndexOf('-');
  if (last <= 0) return null;
  const middle = id.lastIndexOf('-', last - 1);
  if (middle <= 0) return null;
  const prefix = id.slice(0, middle);
  const epochText = id.slice(middle + 1, last);
  const counterText = id.slice(last + 1);
  if (!PREFIX_PATTERN.test(prefix) || !/^[0-9a-z]+$/.test(epochText) || !/^[0-9]+$/.test(counterText)) return null;
  const sessionEpochMs = parseInt(epochText, 36);
  const counter = Number(counterText);
  if (!Number.isSafeInteger(sessionEpochMs) || !Number.isSafeInteger(counter)) return null;
  return { prefix, sessionEpochMs, counter };
}

/**
 * The counter of an id in this format, read without allocating (the OMS's lookup per answer,
 * client-id-index.ts): the canonical decimal after the last '-' (no leading zero, at most 16
 * digits, safe); -1 when there is none. Checks nothing before it: parseClientOrderId does.
 */
export function counterOfId(id: string): number {
  const end = id.length;
  let start = end;
  while (start > 0 && end - start <= COUNTER_DIGITS_MAX) {
    const code = id.charCodeAt(start - 1);
    if (code === DASH) break;
    if (code < 48 || code > 57) return -1;
    start--;
  }
  if (start === end || start === 0 || id.charCodeAt(start - 1) !== DASH || end - start > COUNTER_DIGITS_MAX) return -1;
  if (id.charCodeAt(start) === 48 && end - start > 1) return -1;
  let counter = 0;
  for (let k = start; k < end; k++) counter = counter * 10 + (id.charCodeAt(k) - 48);
  return counter <= Number.MAX_SAFE_INTEGER ? counter : -1;
}

/** A session epoch strictly after every epoch seen before (clock steps back, two starts in one ms). */
export function nextSessionEpoch(nowMs: number, lastEpochMs: number): number {
  const now = Math.floor(nowMs);
  return now > lastEpochMs ? now : lastEpochMs + 1;
}
