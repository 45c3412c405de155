/**
 * Turns one text frame, as the socket's bytes, into one reused record and says which
 * (MessageKind). Two paths, one authority:
 *
 *   bytes --FrameScanner--> orderbook_delta | user_order | fill record     (no string, in place)
 *     \--(any other type, or a frame the scanners defer)--> isUtf8? --> utf8 string --> JSON.parse
 *                                                              \--no--> INVALID_UTF8
 *
 * The JSON path (`decodeText`) decodes every type field by field and is the authority on what a
 * valid frame is; the byte scanners give the same record for every frame they accept and defer the
 * rest (test/feed/decoders/byte-scanners.test.ts). A frame the scanners accept is valid UTF-8 by
 * construction (json-bytes.ts), so only deferred frames pay the UTF-8 check. A frame that is not
 * JSON, lacks a field or carries a bad unit gives MALFORMED with `rejectReason` set; a well-formed
 * frame of a type we do not decode gives UNKNOWN with `unknownType` set; bytes that are not UTF-8
 * give INVALID_UTF8. Never throws, never touches a book or a socket. bench/feed measures this
 * path against JSON.parse.
 *
 * Venue 'margin' (the Margin endpoint, websocket.md §7): an orderbook_delta in the exact layout is
 * read in place (delta-scanner.ts's MARGIN_EXACT); every other Margin frame takes the JSON path, and book, user_order,
 * fill and trade frames are read by the Margin readers into the same records (MARGIN_DELTA_KEYS, MARGIN_SNAPSHOT_KEYS,
 * margin-private.ts); `ticker` / `margin_ticker` fill `marginTicker`.
 */

import { isUtf8 } from 'node:buffer';
import type { MarketRegistry } from '../../market/index.ts';
import { ControlRecord, controlRejectReason, readControl } from './control.ts';
import { DecodeStatus, MessageKind } from './decode-status.ts';
import { QuoteMessageRecord, RfqRecord, readQuoteMessage, readRfq } from './communications.ts';
import { FieldReader, isIndex, isObject } from './field-reader.ts';
import { FillRecord, readFill } from './fill.ts';
import {
  EventFeeUpdateRecord,
  EventLifecycleRecord,
  MarketLifecycleRecord,
  readEventFeeUpdate,
  readEventLifecycle,
  readMarketLifecycle,
} from './lifecycle.ts';
import { MarketPositionRecord, readMarketPosition } from './market-position.ts';
import { OrderGroupUpdateRecord, readOrderGroupUpdate } from './order-group-update.ts';
import { MARGIN_DELTA_KEYS, OrderbookDeltaRecord, decodeDeltaObject, deltaRejectReason } from './orderbook-delta.ts';
import { MARGIN_SNAPSHOT_KEYS, OrderbookSnapshotRecord, decodeSnapshotObject, snapshotRejectReason } from './orderbook-snapshot.ts';
import { FrameScanner, SCAN_DEFERRED } from './frame-scanner.ts';
import { TradeRecord, readTrade } from './trade.ts';
import { UserOrderRecord, readUserOrder } from './user-order.ts';
import { readMarginFill, readMarginTrade, readMarginUserOrder } from './margin-private.ts';
import { MarginTickerRecord, readMarginTicker } from './margin-ticker.ts';

/** Which exchange's WebSocket the frames come from: field names differ (websocket.md §7). */
export type FeedVenue = 'predictions' | 'margin';

export class FrameDecoder {
  readonly tickers: MarketRegistry;
  readonly venue: FeedVenue;
  readonly delta = new OrderbookDeltaRecord();
  readonly snapshot = new OrderbookSnapshotRecord();
  readonly trade = new TradeRecord();
  readonly fill = new FillRecord();
  readonly userOrder = new UserOrderRecord();
  readonly marketPosition = new MarketPositionRecord();
  readonly orderGroupUpdate = new OrderGroupUpdateRecord();
  readonly marketLifecycle = new MarketLifecycleRecord();
  readonly eventLifecycle = new EventLifecycleRecord();
  readonly eventFeeUpdate = new EventFeeUpdateRecord();
  readonly rfq = new RfqRecord();
  readonly quote = new QuoteMessageRecord();
  /** Margin only: the `ticker` message. */
  readonly marginTicker = new MarginTickerRecord();
  readonly subscribed = new ControlRecord('subscribed');
  readonly unsubscribed = new ControlRecord('unsubscribed');
  readonly ok = new ControlRecord('ok');
  readonly error = new ControlRecord('error');
  /** Why the last MALFORMED frame was rejected (a field name or a short constant). */
  rejectReason = '';
  /** The type of the last UNKNOWN frame. */
  unknownType = '';
  /** Frames the byte scanners decoded in place, and frames that took the JSON path (telemetry, tests). */
  framesScanned = 0;
  framesParsed = 0;
  readonly #reader = new FieldReader();
  readonly #scanner: FrameScanner;
  readonly #margin: boolean;

  constructor(tickers: MarketRegistry, venue: FeedVenue = 'predictions') {
    this.tickers = tickers;
    this.venue = venue;
    this.#margin = venue === 'margin';
    this.#scanner = new FrameScanner(tickers, this.delta, this.userOrder, this.fill);
  }

  /**
   * Decodes the text frame in bytes[start, end) (the socket's buffer: read during the call only;
   * records keep no reference to it except a delta's client order id, read while the frame is
   * handled). The hot path: orderbook_delta frames allocate nothing here.
   */
  decode(bytes: Buffer, start: number, end: number): MessageKind {
    // Margin frames: only a delta in the exact layout is read in place (the other scanners know Predictions keys).
    const kind = this.#margin ? this.#scanner.scanMargin(bytes, start, end) : this.#scanner.scan(bytes, start, end);
    if (kind !== SCAN_DEFERRED) {
      this.framesScanned++;
      return kind as MessageKind;
    }
    this.framesParsed++;
    // The JSON path: a string (and JSON.parse's objects) per frame, as it was for every frame.
    if (!isUtf8(bytes.subarray(start, end))) {
      this.rejectReason = 'invalid UTF-8';
      return MessageKind.INVALID_UTF8;
    }
    return this.decodeText(bytes.toString('utf8', start, end));
  }

  /**
   * The JSON path on a frame already made text: JSON.parse, then the kind's reader. decode() takes
   * it for every frame the byte scanners defer; tests compare the two paths through it.
   */
  decodeText(text: string): MessageKind {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return this.#malformed('invalid JSON');
    }
    if (!isObject(frame)) return this.#malformed('frame is not an object');
    const type = frame.type;
    if (typeof type !== 'string') return this.#malformed('type');
    if (this.#margin) {
      switch (type) {
        case 'orderbook_delta':
          return decodeDeltaObject(frame, this.delta, this.tickers, MARGIN_DELTA_KEYS) === DecodeStatus.OK
            ? MessageKind.ORDERBOOK_DELTA
            : this.#malformed(deltaRejectReason);
        case 'orderbook_snapshot':
          return decodeSnapshotObject(frame, this.snapshot, this.tickers, MARGIN_SNAPSHOT_KEYS) === DecodeStatus.OK
            ? MessageKind.ORDERBOOK_SNAPSHOT
            : this.#malformed(snapshotRejectReason);
        case 'ticker':
        case 'margin_ticker':
          return this.#data(frame, MessageKind.MARGIN_TICKER);
        case 'market_position':
        case 'market_lifecycle_v2':
        case 'event_lifecycle':
        case 'event_fee_update':
        case 'rfq_created':
        case 'rfq_deleted':
        case 'quote_created':
        case 'quote_accepted':
        case 'quote_executed':
          // Not Margin messages (websocket.md §7): nothing of ours reads them there.
          this.unknownType = type;
          return MessageKind.UNKNOWN;
      }
    }
    switch (type) {
      case 'orderbook_delta':
        return decodeDeltaObject(frame, this.delta, this.tickers) === DecodeStatus.OK
          ? MessageKind.ORDERBOOK_DELTA
          : this.#malformed(deltaRejectReason);
      case 'orderbook_snapshot':
        return decodeSnapshotObject(frame, this.snapshot, this.tickers) === DecodeStatus.OK
          ? MessageKind.ORDERBOOK_SNAPSHOT
          : this.#malformed(snapshotRejectReason);
      case 'trade':
        return this.#data(frame, MessageKind.TRADE);
      case 'fill':
        return this.#data(frame, MessageKind.FILL);
      case 'user_order':
        return this.#data(frame, MessageKind.USER_ORDER);
      case 'market_position':
        return this.#data(frame, MessageKind.MARKET_POSITION);
      case 'order_group_updates':
        return this.#data(frame, MessageKind.ORDER_GROUP_UPDATE);
      case 'market_lifecycle_v2':
        return this.#data(frame, MessageKind.MARKET_LIFECYCLE);
      case 'event_lifecycle':
        return this.#data(frame, MessageKind.EVENT_LIFECYCLE);
      case 'event_fee_update':
        return this.#data(frame, MessageKind.EVENT_FEE_UPDATE);
      case 'rfq_created':
      case 'rfq_deleted':
        return this.#data(frame, MessageKind.RFQ, type);
      case 'quote_created':
      case 'quote_accepted':
      case 'quote_executed':
        return this.#data(frame, MessageKind.QUOTE, type);
      case 'subscribed':
        return readControl(frame, this.subscribed) ? MessageKind.SUBSCRIBED : this.#malformed(controlRejectReason);
      case 'unsubscribed':
        return readControl(frame, this.unsubscribed) ? MessageKind.UNSUBSCRIBED : this.#malformed(controlRejectReason);
      case 'ok':
        return readControl(frame, this.ok) ? MessageKind.OK : this.#malformed(controlRejectReason);
      case 'error':
        return readControl(frame, this.error) ? MessageKind.ERROR : this.#malformed(controlRejectReason);
      default:
        this.unknownType = type;
        return MessageKind.UNKNOWN;
    }
  }

  /**
   * Data messages: envelope sid (required), seq (optional), msg object read by the kind's reader;
   * `type` tells the communications messages of one kind apart (rfq_created / rfq_deleted, ...).
   */
  #data(frame: Record<string, unknown>, kind: MessageKind, type = ''): MessageKind {
    const sid = frame.sid;
    const seq = frame.seq;
    const msg = frame.msg;
    if (!isIndex(sid)) return this.#malformed('sid');
    if (seq !== undefined && seq !== null && !isIndex(seq)) return this.#malformed('seq');
    if (!isObject(msg)) return this.#malformed('msg');
    const seqValue = typeof seq === 'number' ? seq : -1;
    const reader = this.#reader;
    reader.begin(msg);
    const margin = this.#margin;
    switch (kind) {
      case MessageKind.TRADE:
        this.trade.sid = sid;
        this.trade.seq = seqValue;
        if (margin) readMarginTrade(reader, this.trade);
        else readTrade(reader, this.trade);
        break;
      case MessageKind.FILL:
        this.fill.sid = sid;
        if (margin) readMarginFill(reader, this.fill);
        else readFill(reader, this.fill);
        break;
      case MessageKind.USER_ORDER:
        this.userOrder.sid = sid;
        if (margin) readMarginUserOrder(reader, this.userOrder);
        else readUserOrder(reader, this.userOrder);
        break;
      case MessageKind.MARGIN_TICKER: {
        const ticker = this.marginTicker;
        ticker.sid = sid;
        ticker.seq = seqValue;
        readMarginTicker(reader, ticker);
        const index = reader.ok ? this.tickers.indexOf(ticker.marketTicker) : -1;
        ticker.marketIndex = index;
        if (index !== -1) ticker.marketTicker = this.tickers.tickerAt(index);
        break;
      }
      case MessageKind.MARKET_POSITION:
        this.marketPosition.sid = sid;
        readMarketPosition(reader, this.marketPosition);
        break;
      case MessageKind.ORDER_GROUP_UPDATE:
        this.orderGroupUpdate.sid = sid;
        this.orderGroupUpdate.seq = seqValue;
        readOrderGroupUpdate(reader, this.orderGroupUpdate);
        break;
      case MessageKind.MARKET_LIFECYCLE:
        this.marketLifecycle.sid = sid;
        this.marketLifecycle.seq = seqValue;
        readMarketLifecycle(reader, this.marketLifecycle);
        break;
      case MessageKind.EVENT_LIFECYCLE:
        this.eventLifecycle.sid = sid;
        this.eventLifecycle.seq = seqValue;
        readEventLifecycle(reader, this.eventLifecycle);
        break;
      case MessageKind.EVENT_FEE_UPDATE:
        this.eventFeeUpdate.sid = sid;
        this.eventFeeUpdate.seq = seqValue;
        readEventFeeUpdate(reader, this.eventFeeUpdate);
        break;
      case MessageKind.RFQ:
        this.rfq.sid = sid;
        this.rfq.seq = seqValue;
        readRfq(reader, type === 'rfq_created' ? 'created' : 'deleted', this.rfq);
        break;
      case MessageKind.QUOTE:
        this.quote.sid = sid;
        this.quote.seq = seqValue;
        readQuoteMessage(reader, type === 'quote_created' ? 'created' : type === 'quote_accepted' ? 'accepted' : 'executed', this.quote);
        break;
    }
    return reader.ok ? kind : this.#malformed(reader.badKey);
  }

  #malformed(reason: string): MessageKind {
    this.rejectReason = reason;
    return MessageKind.MALFORMED;
  }
}
