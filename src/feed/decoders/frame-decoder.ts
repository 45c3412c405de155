/**
 * Turns one text frame into one reused record and says which (MessageKind). orderbook_delta frames
 * go through the hand scanner first when `useScanner` is on (the default: see bench/feed/suite.ts)
 * and through JSON.parse otherwise or when the scanner defers; every other type is JSON.parse'd
 * and read field by field. A frame that is not JSON, lacks a field or carries a bad unit gives
 * MALFORMED with `rejectReason` set; a well-formed frame of a type we do not decode gives UNKNOWN
 * with `unknownType` set. Never throws, never touches a book or a socket.
 */

import type { TickerTable } from '../ticker-table.ts';
import { ControlRecord, controlRejectReason, readControl } from './control.ts';
import { DecodeStatus, MessageKind } from './decode-status.ts';
import { scanDelta } from './delta-scanner.ts';
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
import { OrderbookDeltaRecord, decodeDeltaObject, deltaRejectReason } from './orderbook-delta.ts';
import { OrderbookSnapshotRecord, decodeSnapshotObject, snapshotRejectReason } from './orderbook-snapshot.ts';
import { TradeRecord, readTrade } from './trade.ts';
import { UserOrderRecord, readUserOrder } from './user-order.ts';

export interface FrameDecoderOptions {
  /**
   * Hand-scan orderbook_delta frames (default true); false: JSON.parse every frame. Measured with
   * bench/feed/suite.ts (bench/results/feed-*.json, 2 shared cores): decode throughput 0.95x and
   * 1.33x of JSON.parse + conversion in two full runs, frame -> book 0.99x and 1.09x, i.e. parity
   * within run-to-run noise; the scanner is the default because it allocates nothing per frame
   * (no garbage, no minor GC pauses from the feed on the hot path).
   */
  useScanner?: boolean;
}

export class FrameDecoder {
  readonly tickers: TickerTable;
  useScanner: boolean;
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
  readonly subscribed = new ControlRecord('subscribed');
  readonly unsubscribed = new ControlRecord('unsubscribed');
  readonly ok = new ControlRecord('ok');
  readonly error = new ControlRecord('error');
  /** Why the last MALFORMED frame was rejected (a field name or a short constant). */
  rejectReason = '';
  /** The type of the last UNKNOWN frame. */
  unknownType = '';
  readonly #reader = new FieldReader();

  constructor(tickers: TickerTable, options: FrameDecoderOptions = {}) {
    this.tickers = tickers;
    this.useScanner = options.useScanner ?? true;
  }

  decode(text: string): MessageKind {
    if (this.useScanner && scanDelta(text, this.delta, this.tickers) === DecodeStatus.OK) return MessageKind.ORDERBOOK_DELTA;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return this.#malformed('invalid JSON');
    }
    if (!isObject(frame)) return this.#malformed('frame is not an object');
    const type = frame.type;
    if (typeof type !== 'string') return this.#malformed('type');
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

  /** Data messages: envelope sid (required), seq (optional), msg object read by the kind's reader. */
  #data(frame: Record<string, unknown>, kind: MessageKind): MessageKind {
    const sid = frame.sid;
    const seq = frame.seq;
    const msg = frame.msg;
    if (!isIndex(sid)) return this.#malformed('sid');
    if (seq !== undefined && seq !== null && !isIndex(seq)) return this.#malformed('seq');
    if (!isObject(msg)) return this.#malformed('msg');
    const seqValue = typeof seq === 'number' ? seq : -1;
    const reader = this.#reader;
    reader.begin(msg);
    switch (kind) {
      case MessageKind.TRADE:
        this.trade.sid = sid;
        this.trade.seq = seqValue;
        readTrade(reader, this.trade);
        break;
      case MessageKind.FILL:
        this.fill.sid = sid;
        readFill(reader, this.fill);
        break;
      case MessageKind.USER_ORDER:
        this.userOrder.sid = sid;
        readUserOrder(reader, this.userOrder);
        break;
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
    }
    return reader.ok ? kind : this.#malformed(reader.badKey);
  }

  #malformed(reason: string): MessageKind {
    this.rejectReason = reason;
    return MessageKind.MALFORMED;
  }
}
