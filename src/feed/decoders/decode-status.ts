/**
 * Stable codes for what decoding a frame gave. DecodeStatus is a decoder's verdict on one frame;
 * MessageKind names which reused record a frame filled. Append only, never renumber: logs,
 * counters and tests match on them.
 */

export const DecodeStatus = {
  /** The record holds the frame's fields. */
  OK: 0,
  /** A well-formed frame of another type. */
  NOT_DELTA: 1,
  /** Kept for its number: the string scanner's "let JSON.parse decide" (the byte scanners answer -1, frame-scanner.ts). */
  FALLBACK: 2,
  /** Not valid JSON, or a field missing or of the wrong type or unit. */
  MALFORMED: 3,
} as const;
export type DecodeStatus = (typeof DecodeStatus)[keyof typeof DecodeStatus];

export const MessageKind = {
  MALFORMED: 0,
  UNKNOWN: 1,
  ORDERBOOK_DELTA: 2,
  ORDERBOOK_SNAPSHOT: 3,
  TRADE: 4,
  FILL: 5,
  USER_ORDER: 6,
  MARKET_POSITION: 7,
  ORDER_GROUP_UPDATE: 8,
  MARKET_LIFECYCLE: 9,
  EVENT_LIFECYCLE: 10,
  EVENT_FEE_UPDATE: 11,
  SUBSCRIBED: 12,
  UNSUBSCRIBED: 13,
  OK: 14,
  ERROR: 15,
  /** A text frame whose bytes are not UTF-8: RFC 6455 §8.1 fails the connection (code 1007). */
  INVALID_UTF8: 16,
  /** `communications`: rfq_created / rfq_deleted (FrameDecoder.rfq). */
  RFQ: 17,
  /** `communications`: quote_created / quote_accepted / quote_executed (FrameDecoder.quote). */
  QUOTE: 18,
  /** Margin `ticker` (FrameDecoder.marginTicker). */
  MARGIN_TICKER: 19,
} as const;
export type MessageKind = (typeof MessageKind)[keyof typeof MessageKind];
