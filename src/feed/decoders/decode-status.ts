/**
 * Stable codes for what decoding a frame gave. DecodeStatus is a decoder's verdict on one frame;
 * MessageKind names which reused record a frame filled. Append only, never renumber: logs,
 * counters and tests match on them.
 */

export const DecodeStatus = {
  /** The record holds the frame's fields. */
  OK: 0,
  /** A well-formed frame of another type (the delta scanner only). */
  NOT_DELTA: 1,
  /** The scanner met something it does not handle; JSON.parse decides (the scanner only). */
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
} as const;
export type MessageKind = (typeof MessageKind)[keyof typeof MessageKind];
