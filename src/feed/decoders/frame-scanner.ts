/**
 * The byte path of the frame decoder: reads a frame's envelope (type, sid, seq, msg) from its
 * UTF-8 bytes and hands the msg object to the scanner of its type - orderbook_delta
 * (delta-scanner.ts), user_order (user-order-scanner.ts), fill (fill-scanner.ts) - which fill the
 * decoder's reused records. No string is made and nothing allocated on the way for a delta; the
 * frame is read in place wherever the socket left it.
 *
 * It answers with the MessageKind it decoded, or SCAN_DEFERRED for a frame it does not decode: any
 * other type, and any frame outside the scanners' fast path (escapes in keys, duplicates, numbers
 * like 4.0, non-canonical units, non-ASCII bytes, broken JSON). FrameDecoder then checks the bytes
 * are UTF-8 and takes its JSON.parse path, the authority, which gives the record or MALFORMED with a
 * reason. The envelope's keys may come in any order: when msg precedes type, msg is skipped (its
 * grammar checked) and read once the type is known.
 */

import { MessageKind } from './decode-status.ts';
import { MARGIN_EXACT, scanDeltaExact, scanDeltaMsg } from './delta-scanner.ts';
import type { FillRecord } from './fill.ts';
import { scanFillMsg } from './fill-scanner.ts';
import {
  BRACE_OPEN,
  KeyLayout,
  QUOTE,
  ScanState,
  beginMember,
  beginObject,
  endMember,
  matchLiteral,
  readIndex,
  readOptionalIndex,
  skipValue,
  skipWhitespace,
  stringLiteral,
} from './json-bytes.ts';
import type { OrderbookDeltaRecord } from './orderbook-delta.ts';
import type { MarketRegistry } from '../../market/index.ts';
import { scanUserOrderMsg } from './user-order-scanner.ts';
import type { UserOrderRecord } from './user-order.ts';

/** scan()'s answer for a frame the JSON path must decode. */
export const SCAN_DEFERRED = -1;

const KEY_TYPE = 1;
const KEY_SID = 2;
const KEY_SEQ = 3;
const KEY_MSG = 4;
const ENVELOPE = new KeyLayout([
  ['type', KEY_TYPE],
  ['sid', KEY_SID],
  ['seq', KEY_SEQ],
  ['msg', KEY_MSG],
]);
const REQUIRED = (1 << KEY_TYPE) | (1 << KEY_SID) | (1 << KEY_MSG);

const TYPE_DELTA = stringLiteral('orderbook_delta');
const TYPE_USER_ORDER = stringLiteral('user_order');
const TYPE_FILL = stringLiteral('fill');

export class FrameScanner {
  readonly #state = new ScanState();
  readonly #envelope = new ScanState();
  readonly #tickers: MarketRegistry;
  readonly #delta: OrderbookDeltaRecord;
  readonly #userOrder: UserOrderRecord;
  readonly #fill: FillRecord;

  constructor(tickers: MarketRegistry, delta: OrderbookDeltaRecord, userOrder: UserOrderRecord, fill: FillRecord) {
    this.#tickers = tickers;
    this.#delta = delta;
    this.#userOrder = userOrder;
    this.#fill = fill;
  }

  /**
   * Decodes the frame in b[start, end) into its record: ORDERBOOK_DELTA, USER_ORDER or FILL, or
   * SCAN_DEFERRED (records may then hold partial values; the JSON path rewrites them).
   */
  /**
   * A Margin endpoint frame: an orderbook_delta in the exact layout is read in place; anything else
   * (other types, other layouts) goes to the JSON path, whose Margin readers are the authority.
   */
  scanMargin(b: Buffer, start: number, end: number): number {
    return scanDeltaExact(this.#state, b, start, end, this.#delta, this.#tickers, MARGIN_EXACT) ? MessageKind.ORDERBOOK_DELTA : SCAN_DEFERRED;
  }

  scan(b: Buffer, start: number, end: number): number {
    const state = this.#state;
    if (scanDeltaExact(state, b, start, end, this.#delta, this.#tickers)) return MessageKind.ORDERBOOK_DELTA;
    let p = skipWhitespace(b, start, end);
    if (p >= end || b[p] !== BRACE_OPEN) return SCAN_DEFERRED;
    // The envelope has a state of its own: the msg scanners nested in it use this.#state.
    const envelope = this.#envelope;
    p = beginObject(envelope, b, p, end);
    let kind = SCAN_DEFERRED;
    let sid = -1;
    let seq = -1;
    let msgAt = -1;
    for (;;) {
      p = beginMember(envelope, b, p, end, ENVELOPE);
      if (p === -1) return SCAN_DEFERRED;
      switch (envelope.key) {
        case KEY_TYPE:
          kind = typeAt(b, p, end);
          if (kind === SCAN_DEFERRED) return SCAN_DEFERRED; // another type: the JSON path's
          p += kind === MessageKind.ORDERBOOK_DELTA ? TYPE_DELTA.length : kind === MessageKind.USER_ORDER ? TYPE_USER_ORDER.length : TYPE_FILL.length;
          break;
        case KEY_SID:
          p = readIndex(envelope, b, p, end);
          sid = envelope.value;
          break;
        case KEY_SEQ:
          p = readOptionalIndex(envelope, b, p, end); // null is -1: absent for user_order and fill, refused for a delta
          seq = envelope.value;
          break;
        case KEY_MSG:
          if (b[p] !== BRACE_OPEN) return SCAN_DEFERRED;
          if (kind !== SCAN_DEFERRED) p = this.#scanMsg(kind, b, p, end);
          else {
            // Skipped for now and read once the type is known; that second pass holds its bytes
            // to the UTF-8 rule, so this one may step over any byte.
            msgAt = p;
            p = skipValue(b, p, end, 1, true);
          }
          break;
        default:
          p = skipValue(b, p, end, 1, false);
      }
      p = endMember(envelope, b, p, end);
      if (p === -1) return SCAN_DEFERRED;
      if (envelope.closed) break;
    }
    if (skipWhitespace(b, p, end) !== end) return SCAN_DEFERRED; // bytes after the object
    if ((envelope.seen & REQUIRED) !== REQUIRED) return SCAN_DEFERRED;
    if (msgAt !== -1 && this.#scanMsg(kind, b, msgAt, end) === -1) return SCAN_DEFERRED;
    switch (kind) {
      case MessageKind.ORDERBOOK_DELTA: {
        if (seq === -1) return SCAN_DEFERRED; // required
        const delta = this.#delta;
        delta.sid = sid;
        delta.seq = seq;
        return kind;
      }
      case MessageKind.USER_ORDER:
        this.#userOrder.sid = sid;
        return kind;
      default:
        this.#fill.sid = sid;
        return kind;
    }
  }

  #scanMsg(kind: number, b: Buffer, p: number, end: number): number {
    if (kind === MessageKind.ORDERBOOK_DELTA) return scanDeltaMsg(this.#state, b, p, end, this.#delta, this.#tickers);
    if (kind === MessageKind.USER_ORDER) return scanUserOrderMsg(this.#state, b, p, end, this.#userOrder, this.#tickers);
    return scanFillMsg(this.#state, b, p, end, this.#fill, this.#tickers);
  }
}

/** The MessageKind of the type value at p when it is one the scanners read, else SCAN_DEFERRED. */
function typeAt(b: Buffer, p: number, end: number): number {
  if (p + 1 >= end || b[p] !== QUOTE) return SCAN_DEFERRED;
  switch (b[p + 1]) {
    case 0x6f: // o
      return matchLiteral(b, p, end, TYPE_DELTA) ? MessageKind.ORDERBOOK_DELTA : SCAN_DEFERRED;
    case 0x75: // u
      return matchLiteral(b, p, end, TYPE_USER_ORDER) ? MessageKind.USER_ORDER : SCAN_DEFERRED;
    case 0x66: // f
      return matchLiteral(b, p, end, TYPE_FILL) ? MessageKind.FILL : SCAN_DEFERRED;
    default:
      return SCAN_DEFERRED;
  }
}
