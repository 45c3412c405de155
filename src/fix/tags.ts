/**
 * The FIX vocabulary of the venue (shared/spec/fix.md): tag numbers, MsgType values, the session
 * reject and business reject codes, and the six session kinds with their port, retransmission and
 * ResetSeqNumFlag rules (§1 table). Constants only; encoding and parsing live elsewhere. Names are
 * the ones fix.md uses, so a grep for a tag's name finds both the spec line and the code.
 */

/** Tag numbers. Standard FIX 5.0 SP2 / FIXT.1.1 tags first, then the venue's custom tags. */
export const Tag = {
  // Standard header and trailer (§1)
  BeginString: 8,
  BodyLength: 9,
  CheckSum: 10,
  MsgSeqNum: 34,
  MsgType: 35,
  PossDupFlag: 43,
  SenderCompID: 49,
  SenderSubID: 50,
  SendingTime: 52,
  TargetCompID: 56,
  TargetSubID: 57,
  PossResend: 97,
  OrigSendingTime: 122,
  ApplVerID: 1128,

  // Session messages (§2, §3)
  BeginSeqNo: 7,
  EndSeqNo: 16,
  NewSeqNo: 36,
  RefSeqNum: 45,
  Text: 58,
  RawDataLength: 95,
  RawData: 96,
  EncryptMethod: 98,
  HeartBtInt: 108,
  TestReqID: 112,
  GapFillFlag: 123,
  ResetSeqNumFlag: 141,
  RefTagID: 371,
  RefMsgType: 372,
  SessionRejectReason: 373,
  BusinessRejectRefID: 379,
  BusinessRejectReason: 380,
  Username: 553,
  Password: 554,
  DefaultApplVerID: 1137,

  // Logon flags (§2)
  CancelOrdersOnDisconnect: 8013,
  ListenerSession: 20126,
  ReceiveSettlementReports: 20127,
  MessageRetentionPeriod: 20200,
  UseDollars: 21005,
  EnableIocCancelReport: 21007,
  PreserveOriginalOrderQty: 21008,
  SkipPendingExecReports: 21011,
  UseExpiredOrdStatus: 21012,
  AlwaysEmitNewBeforeTrade: 21026,
  SplitCollateralReturn: 21027,
  UseCapReservation: 21032,

  // Order entry (§5)
  AvgPx: 6,
  ClOrdID: 11,
  CumQty: 14,
  ExecID: 17,
  ExecInst: 18,
  LastMkt: 30,
  LastPx: 31,
  LastQty: 32,
  OrderID: 37,
  OrderQty: 38,
  OrdStatus: 39,
  OrdType: 40,
  OrigClOrdID: 41,
  Price: 44,
  Side: 54,
  Symbol: 55,
  TimeInForce: 59,
  TransactTime: 60,
  AllocAccount: 79,
  ExDestination: 100,
  CxlRejReason: 102,
  OrdRejReason: 103,
  ExpireTime: 126,
  NoMiscFees: 136,
  MiscFeeAmt: 137,
  MiscFeeCurr: 138,
  MiscFeeType: 139,
  ExecType: 150,
  LeavesQty: 151,
  CxlRejResponseTo: 434,
  PartyID: 448,
  PartyRole: 452,
  NoPartyIDs: 453,
  SecondaryClOrdID: 526,
  MassCancelRequestType: 530,
  MassCancelResponse: 531,
  MassCancelRejectReason: 532,
  LongQty: 704,
  ShortQty: 705,
  ClearingBusinessDate: 715,
  TrdMatchID: 880,
  MiscFeeBasis: 891,
  AggressorIndicator: 1057,
  NoCollateralAmountChanges: 1703,
  CollateralAmountChange: 1704,
  CollateralType: 1705,
  SelfTradePreventionType: 2964,
  CancelOrderOnPause: 21006,
  MaxExecutionCost: 21009,
  SingleMarketCollateralReturn: 21030,
  RangedMarketCollateralReturn: 21031,

  // Order groups (§6)
  OrderGroupID: 20130,
  OrderGroupAction: 20131,
  OrderGroupContractsLimit: 20132,

  // Drop copy (§3)
  BeginExecID: 21001,
  EndExecID: 21002,
  ResendEventCount: 21003,
  EventResendRejectReason: 21004,

  // RFQ (§7)
  QuoteID: 117,
  QuoteReqID: 131,
  BidPx: 132,
  OfferPx: 133,
  BidSize: 134,
  OfferSize: 135,
  NoRelatedSym: 146,
  CashOrderQty: 152,
  QuoteStatus: 297,
  QuoteCancelStatus: 298,
  QuoteRequestType: 303,
  QuoteRequestRejectReason: 658,
  MultivariateCollectionTicker: 20180,
  NoMultivariateSelectedLegs: 20181,
  MultivariateSelectedEventTicker: 20182,
  MultivariateSelectedMarketTicker: 20183,
  MultivariateSelectedSide: 20184,
  NoMVEOffendingLegs: 20185,
  MVEOffendingMarketTicker: 20186,
  MVEValidationReasonCode: 20187,
  QuoteConfirmStatus: 21010,
  RFQCancelStatus: 21013,
  RestRemainder: 21015,
  ReplaceExisting: 21016,
  PreferBetterQuote: 21022,
  RfqId: 21023,
  AcceptedQuoteId: 21024,
  AcceptQuoteStatus: 21025,

  // Market data and security status (§8)
  MDReqID: 262,
  SubscriptionRequestType: 263,
  MarketDepth: 264,
  MDUpdateType: 265,
  NoMDEntries: 268,
  MDEntryType: 269,
  MDEntryPx: 270,
  MDEntrySize: 271,
  MDEntryDate: 272,
  MDEntryTime: 273,
  MDUpdateAction: 279,
  MDReqRejReason: 281,
  SecurityTradingStatus: 326,
  TrdType: 828,
  AggressorSide: 2446,

  // Market settlement (§9)
  SettlementPrice: 730,
  LastFragment: 893,
  MarketSettlementReportID: 20105,
  TotNumMarketSettlementReports: 20106,
  MarketResult: 20107,
  NoMarketSettlementPartyIDs: 20108,
  MarketSettlementPartyID: 20109,
  MarketSettlementPartyRole: 20110,
} as const satisfies Record<string, number>;
export type Tag = (typeof Tag)[keyof typeof Tag];

/** MsgType(35) values: session messages (§3) then the application messages fix.md names. */
export const MsgType = {
  Heartbeat: '0',
  TestRequest: '1',
  ResendRequest: '2',
  Reject: '3',
  SequenceReset: '4',
  Logout: '5',
  Logon: 'A',
  BusinessMessageReject: 'j',

  ExecutionReport: '8',
  OrderCancelReject: '9',
  NewOrderSingle: 'D',
  OrderCancelRequest: 'F',
  OrderCancelReplaceRequest: 'G',
  OrderMassCancelRequest: 'q',
  OrderMassCancelReport: 'r',
  OrderGroupRequest: 'UOG',
  OrderGroupResponse: 'UOH',

  EventResendRequest: 'U1',
  EventResendComplete: 'U2',
  EventResendReject: 'U3',

  QuoteRequest: 'R',
  QuoteRequestAck: 'b',
  Quote: 'S',
  QuoteStatusReport: 'AI',
  QuoteCancel: 'Z',
  QuoteCancelStatus: 'U9',
  QuoteConfirm: 'U7',
  QuoteConfirmStatus: 'U8',
  AcceptQuote: 'UA',
  AcceptQuoteStatus: 'UC',
  RFQCancel: 'UE',
  RFQCancelStatus: 'UB',
  QuoteRequestReject: 'AG',

  MarketDataRequest: 'V',
  MarketDataSnapshotFullRefresh: 'W',
  MarketDataIncrementalRefresh: 'X',
  MarketDataRequestReject: 'Y',
  SecurityStatusRequest: 'e',
  SecurityStatus: 'f',

  MarketSettlementReport: 'UMS',
} as const satisfies Record<string, string>;
export type MsgType = (typeof MsgType)[keyof typeof MsgType];

/** The session-level MsgTypes: never delivered to the application, gap-filled rather than resent. */
export function isAdminMsgType(msgType: string): boolean {
  return msgType.length === 1 && '012345A'.includes(msgType);
}

/** SessionRejectReason(373), §3. Never renumber. */
export const SessionRejectReason = {
  INVALID_TAG_NUMBER: 0,
  REQUIRED_TAG_MISSING: 1,
  TAG_NOT_DEFINED_FOR_MSG_TYPE: 2,
  UNDEFINED_TAG: 3,
  TAG_WITHOUT_VALUE: 4,
  VALUE_INCORRECT: 5,
  INCORRECT_DATA_FORMAT: 6,
  DECRYPTION_PROBLEM: 7,
  SIGNATURE_PROBLEM: 8,
  COMP_ID_PROBLEM: 9,
  SENDING_TIME_ACCURACY: 10,
  INVALID_MSG_TYPE: 11,
} as const;
export type SessionRejectReason = (typeof SessionRejectReason)[keyof typeof SessionRejectReason];

/** BusinessRejectReason(380), §3. */
export const BusinessRejectReason = {
  OTHER: 0,
  UNKNOWN_ID: 1,
  UNKNOWN_SECURITY: 2,
  UNSUPPORTED_MESSAGE_TYPE: 3,
  APPLICATION_NOT_AVAILABLE: 4,
  CONDITIONALLY_REQUIRED_FIELD_MISSING: 5,
  NOT_AUTHORIZED: 6,
  RATE_LIMIT_EXCEEDED: 8,
} as const;
export type BusinessRejectReason = (typeof BusinessRejectReason)[keyof typeof BusinessRejectReason];

/** BeginString of every message (§1) and DefaultApplVerID on Logon: 9 = FIX50SP2. */
export const BEGIN_STRING = 'FIXT.1.1';
export const DEFAULT_APPL_VER_ID = '9';

/** TargetCompID values a client sends (§1). The server answers with the same name as its SenderCompID. */
export const SessionName = {
  KalshiNR: 'KalshiNR',
  KalshiRT: 'KalshiRT',
  KalshiDC: 'KalshiDC',
  KalshiPT: 'KalshiPT',
  KalshiRFQ: 'KalshiRFQ',
  KalshiMD: 'KalshiMD',
} as const;
export type SessionName = (typeof SessionName)[keyof typeof SessionName];

export interface SessionKind {
  readonly name: SessionName;
  /** The same port in production and demo. */
  readonly port: number;
  readonly host: 'order-entry' | 'market-data';
  /** ResendRequest and SequenceReset are supported (only RT and PT). */
  readonly retransmits: boolean;
  /** A Logon without 141=Y is rejected. */
  readonly resetSeqNumRequired: boolean;
}

/** fix.md §1 "Session kinds (Predictions exchange)", newest wording of the 141 rule. */
export const SESSION_KINDS: Readonly<Record<SessionName, SessionKind>> = Object.freeze({
  KalshiNR: { name: 'KalshiNR', port: 8228, host: 'order-entry', retransmits: false, resetSeqNumRequired: true },
  KalshiDC: { name: 'KalshiDC', port: 8229, host: 'order-entry', retransmits: false, resetSeqNumRequired: true },
  KalshiRT: { name: 'KalshiRT', port: 8230, host: 'order-entry', retransmits: true, resetSeqNumRequired: false },
  KalshiPT: { name: 'KalshiPT', port: 8231, host: 'order-entry', retransmits: true, resetSeqNumRequired: false },
  KalshiRFQ: { name: 'KalshiRFQ', port: 8232, host: 'order-entry', retransmits: false, resetSeqNumRequired: true },
  KalshiMD: { name: 'KalshiMD', port: 8233, host: 'market-data', retransmits: false, resetSeqNumRequired: true },
} satisfies Record<SessionName, SessionKind>);

/** `ExchangeMD` (interface-spec) is the same session as KalshiMD (§1 Naming). */
export const SESSION_NAME_ALIASES: Readonly<Record<string, SessionName>> = Object.freeze({ ExchangeMD: 'KalshiMD' });

/** The kind of a TargetCompID, aliases included; null for an unknown name. */
export function sessionKindOf(targetCompId: string): SessionKind | null {
  const name = Object.hasOwn(SESSION_KINDS, targetCompId)
    ? (targetCompId as SessionName)
    : Object.hasOwn(SESSION_NAME_ALIASES, targetCompId) ? SESSION_NAME_ALIASES[targetCompId] : null;
  return name === null ? null : SESSION_KINDS[name];
}
