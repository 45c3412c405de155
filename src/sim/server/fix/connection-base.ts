/**
 * What every simulator FIX connection shares: the acceptor context (engine, keys, limits, faults,
 * the report hub), the key-level Logon rules of fix.md §11 step 9 (subaccount-restricted keys may
 * not open DC, RT or listener sessions; listener needs 21011=Y and forbids 8013=Y; Logon is billed
 * to the read bucket), the Logon flags kept for the life of the session (§2), per-connection bounds
 * on message rate and garbled input, the "undefined tag" check (§3: 373=3, or 373=2 for a known tag
 * on the wrong message), and the session-level Reject and BusinessMessageReject writers. The
 * message helpers are public so that a handler shared by two connection kinds (rfq-requester.ts)
 * can answer through the connection it serves.
 */

import type { Logger } from 'pino';
import {
  BusinessRejectReason, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixApplication, type FixMessage, type FixSession,
  type FixSessionEvent, type SessionKind,
} from '../../../fix/index.ts';
import { resolveSubaccount, scopesAllow, SUBACCOUNT_FORBIDDEN, type ApiKeyRecord, type ApiKeyStore } from '../../auth/index.ts';
import type { SimEngine } from '../../engine/index.ts';
import type { FaultController } from '../../faults/index.ts';
import { bucketOf, costOf, type RateLimiter } from '../../rate-limit/index.ts';
import type { ReportFlags } from './execution-report.ts';
import type { ReportHub } from './report-hub.ts';

export interface AcceptorContext {
  engine: SimEngine;
  keys: ApiKeyStore;
  rateLimiter: RateLimiter;
  faults: FaultController;
  logger: Logger;
  hub: ReportHub;
  now: () => number;
  ensureFunded(userId: string, subaccount: number): void;
  ensureUser(userId: string): void;
  /** Application messages per connection per second before the connection is logged out. */
  messagesPerSecondMax: number;
  /** Framing errors per connection before it is closed. */
  framingErrorsMax: number;
  /** OrderMassCancelRequest spacing, ms (fix.md §1: 1 per second). */
  massCancelIntervalMs: number;
  /** Unsent bytes a connection may hold before it stops producing market data and resends (fix-acceptor.ts). */
  outputBytesMax: number;
  /**
   * SendingTime of the last accepted Logon per API key and session name, epoch ms: a signed Logon
   * replayed byte for byte must not log on again (the signature binds the session name, not the venue).
   */
  logonTimes: Map<string, number>;
}

/** Header and trailer tags any message may carry. */
const HEADER_TAGS: readonly number[] = [
  Tag.BeginString, Tag.BodyLength, Tag.MsgType, Tag.SenderCompID, Tag.TargetCompID, Tag.MsgSeqNum, Tag.SendingTime,
  Tag.PossDupFlag, Tag.PossResend, Tag.OrigSendingTime, Tag.SenderSubID, Tag.TargetSubID, Tag.ApplVerID, Tag.CheckSum,
  115, 128, // OnBehalfOfCompID, DeliverToCompID: tolerated, ignored
];
const KNOWN_TAGS: ReadonlySet<number> = new Set<number>([...Object.values(Tag), 1, 15, 447]);

/** The allowed tags of one message type: the header plus `body`. */
export function allowedTags(body: readonly number[]): ReadonlySet<number> {
  return new Set<number>([...HEADER_TAGS, ...body]);
}

/** The Parties block (fix.md §5) both exchanges' order entry accepts. */
export const PARTY_TAGS: readonly number[] = [Tag.NoPartyIDs, Tag.PartyID, 447, Tag.PartyRole];
/** OrderCancelRequest (35=F) and OrderCancelReplaceRequest (35=G) tags, the same on both exchanges. */
export const CANCEL_TAGS = allowedTags([
  Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderID, Tag.Side, Tag.Symbol, Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS,
  Tag.TransactTime, Tag.OrderQty, Tag.Text,
]);
export const REPLACE_TAGS = allowedTags([
  Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderID, Tag.OrderQty, Tag.OrdType, Tag.Price, Tag.Side, Tag.Symbol, Tag.TimeInForce,
  Tag.ExpireTime, Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS, Tag.TransactTime, Tag.ExecInst, Tag.Text,
]);
/** ClOrdID(11) and ids like it: 1 to 64 printable characters (fix.md §5). */
export const CL_ORD_ID_CHARS_MAX = 64;
const MASS_CANCEL_TAGS = allowedTags([Tag.ClOrdID, Tag.MassCancelRequestType, Tag.AllocAccount, Tag.TransactTime, Tag.Text]);
const ORDER_GROUP_TAGS = allowedTags([Tag.OrderGroupAction, Tag.OrderGroupID, Tag.OrderGroupContractsLimit, Tag.AllocAccount, Tag.ExDestination]);
/** fix.md §6: OrderGroupContractsLimit(20132) is 1 to 1,000,000 contracts. */
const GROUP_CONTRACTS_MAX = 1_000_000;

/** An OrderGroupRequest (35=UOG) that passed the checks both exchanges share. */
export interface OrderGroupRequest {
  /** 1 create, 2 reset, 3 delete, 4 trigger, 5 update the limit. */
  action: number;
  /** '' on create. */
  groupId: string;
  /** Create and update: the contracts limit in count units (1/100 contract); null otherwise. */
  limit: number | null;
  subaccount: number;
}

export abstract class ConnectionBase implements FixApplication {
  readonly ctx: AcceptorContext;
  readonly sessionName: string;
  readonly flags: ReportFlags = { dollars: false, preserveOriginalQty: false, splitCollateral: false, expiredStatus: false };
  session: FixSession | null = null;
  key: ApiKeyRecord | null = null;
  keyId = '';
  userId = '';
  listener = false;
  #lastMassCancelMs = -1;
  #massCancelCount = 0;
  skipPending = false;
  newBeforeTrade = false;
  iocCancelReport = false;
  cancelOnDisconnect = false;
  #windowStartMs = 0;
  #windowCount = 0;
  #framingErrors = 0;
  /** Called by onEvent after a successful Logon (the acceptor tracks RT keys with it). */
  afterLogon: (() => void) | null = null;
  /** Set once the peer must be dropped (rate bound, a fault); later messages are ignored. */
  protected dropped = false;
  /** Set by the acceptor: destroys the socket without a Logout (faults). */
  dropConnection: () => void = () => {};
  /** Set by the acceptor: bytes written but not yet sent (the socket's writableLength). */
  outputBytes: () => number = () => 0;

  constructor(ctx: AcceptorContext, sessionName: string) {
    this.ctx = ctx;
    this.sessionName = sessionName;
  }

  /** fix.md §11 step 9 and the flags of §2; a refusal Text, or null to accept. */
  authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    const key = this.ctx.keys.get(keyId);
    if (key === undefined) return 'Unknown API key';
    const restricted = key.subaccount !== null;
    const listener = logon.getFlag(Tag.ListenerSession);
    if (restricted && (kind.name === 'KalshiDC' || kind.name === 'KalshiRT')) return `A subaccount-restricted API key may not open ${kind.name}`;
    if (listener) {
      if (kind.name !== 'KalshiNR' && kind.name !== 'KalshiRT') return 'ListenerSession(20126) is allowed on KalshiNR and KalshiRT only';
      if (restricted) return 'A subaccount-restricted API key may not open a listener session';
      if (!logon.getFlag(Tag.SkipPendingExecReports) && !logon.getFlag(21003)) return 'ListenerSession(20126)=Y requires SkipPendingExecReports(21011)=Y';
      if (logon.getFlag(Tag.CancelOrdersOnDisconnect)) return 'CancelOrdersOnDisconnect(8013)=Y is not allowed on a listener session';
    }
    // A replayed signed Logon carries a SendingTime already seen for this key and session (ours; fix.md is silent).
    const replayKey = `${keyId}|${kind.name}`;
    const sendingTimeMs = logon.getTimestamp(Tag.SendingTime);
    if (sendingTimeMs <= (this.ctx.logonTimes.get(replayKey) ?? -1)) return 'SendingTime(52) not newer than the last Logon of this key';
    // fix.md §1: Logon is rate-limited (the read bucket, default cost; ours).
    if (!this.ctx.rateLimiter.admit(keyId, key.tier, 'read', costOf('GET', '/fix/logon').cost)) return 'Rate limit exceeded';
    this.ctx.logonTimes.set(replayKey, sendingTimeMs);
    this.key = key;
    this.keyId = keyId;
    this.userId = key.userId;
    this.listener = listener;
    this.flags.dollars = logon.getFlag(Tag.UseDollars);
    this.flags.preserveOriginalQty = logon.getFlag(Tag.PreserveOriginalOrderQty);
    this.flags.splitCollateral = logon.getFlag(Tag.SplitCollateralReturn);
    this.flags.expiredStatus = logon.getFlag(Tag.UseExpiredOrdStatus);
    this.skipPending = logon.getFlag(Tag.SkipPendingExecReports) || (kind.name !== 'KalshiDC' && logon.getFlag(21003));
    this.newBeforeTrade = logon.getFlag(Tag.AlwaysEmitNewBeforeTrade);
    this.iocCancelReport = logon.getFlag(Tag.EnableIocCancelReport);
    this.cancelOnDisconnect = logon.getFlag(Tag.CancelOrdersOnDisconnect);
    this.ctx.ensureUser(key.userId);
    return null;
  }

  onEvent(event: FixSessionEvent, session: FixSession): void {
    this.session = session;
    if (event.type === 'framing-error') {
      this.#framingErrors++;
      if (this.#framingErrors > this.ctx.framingErrorsMax) {
        this.ctx.logger.debug({ keyId: this.keyId, code: event.code }, 'fix: too much garbled input, closing');
        session.logout('Too many garbled messages');
      }
      return;
    }
    if (event.type === 'logon') {
      this.onLogon();
      this.afterLogon?.();
    }
    else if (event.type === 'closed') this.onClosed();
  }

  /**
   * Counts `count` messages against the per-second message-rate bound (a MarketDataRequest counts
   * one per symbol, a ResendRequest one); false when the bound is passed: the peer is logged out.
   */
  chargeMessages(count: number): boolean {
    if (this.dropped) return false;
    const now = this.ctx.now();
    if (now - this.#windowStartMs >= 1000) {
      this.#windowStartMs = now;
      this.#windowCount = 0;
    }
    this.#windowCount += count;
    if (this.#windowCount <= this.ctx.messagesPerSecondMax) return true;
    this.dropped = true;
    this.session?.logout('Message rate exceeded');
    return false;
  }

  /** True when the connection's unsent output is at or above the budget: produce no more market data. */
  outputFull(): boolean {
    return this.outputBytes() >= this.ctx.outputBytesMax;
  }

  onMessage(message: FixMessage, session: FixSession): void {
    this.session = session;
    if (!this.chargeMessages(1)) return;
    const msgType = message.msgType();
    let dropAfter = false;
    const faults = this.ctx.faults;
    if (faults.fixActive) {
      // fix_disconnect (faults/fault-rule.ts): the connection goes before or after the message is handled.
      const decision = faults.decideFix('inbound', this.sessionName, msgType, this.keyId);
      if (decision.kind === 'fix_disconnect') {
        if (!decision.applied) {
          this.dropped = true;
          this.dropConnection();
          return;
        }
        dropAfter = true;
      }
    }
    try {
      this.handle(message, msgType);
    } catch (error) {
      // A bug in a handler must not take the simulator down: log it and answer what we can.
      this.ctx.logger.error({ err: error, keyId: this.keyId }, 'fix: handler failed');
      this.businessReject(message, BusinessRejectReason.OTHER, 'INTERNAL_ERROR', '');
    }
    if (dropAfter) {
      // Applied; its answers are still corked in the socket (fix-acceptor.ts) and die with it.
      this.dropped = true;
      this.dropConnection();
    }
  }

  protected abstract handle(message: FixMessage, msgType: string): void;
  protected onLogon(): void {}
  protected onClosed(): void {}

  /** True when the message carries only `allowed` tags; otherwise answers Reject 373=3/2 and returns false. */
  checkTags(message: FixMessage, msgType: string, allowed: ReadonlySet<number>): boolean {
    for (let i = 0; i < message.fieldCount; i++) {
      const tag = message.tagAt(i);
      if (allowed.has(tag)) continue;
      if (KNOWN_TAGS.has(tag)) this.sessionReject(message, SessionRejectReason.TAG_NOT_DEFINED_FOR_MSG_TYPE, tag, msgType, 'Tag not defined for this message type');
      else this.sessionReject(message, SessionRejectReason.UNDEFINED_TAG, tag, msgType, 'Undefined tag received');
      return false;
    }
    return true;
  }

  /** True when every tag of `required` is present; otherwise answers Reject 373=1. */
  checkRequired(message: FixMessage, msgType: string, required: readonly number[]): boolean {
    for (const tag of required) {
      if (message.has(tag)) continue;
      this.sessionReject(message, SessionRejectReason.REQUIRED_TAG_MISSING, tag, msgType, 'Required tag missing');
      return false;
    }
    return true;
  }

  /** Reject(35=3), fix.md §3: 45, 58, 371, 372, 373. */
  sessionReject(message: FixMessage, reason: number, tag: number, msgType: string, text: string): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    const encoder = session.begin(MsgType.Reject).int(Tag.RefSeqNum, Math.max(0, message.msgSeqNum)).string(Tag.Text, text);
    if (tag > 0) encoder.int(Tag.RefTagID, tag);
    if (/^[\x21-\x7e]{1,8}$/.test(msgType)) encoder.string(Tag.RefMsgType, msgType);
    encoder.int(Tag.SessionRejectReason, reason);
    session.send();
  }

  /** BusinessMessageReject(35=j), fix.md §3: 45, 372, 380, 379, 58. */
  businessReject(message: FixMessage, reason: number, text: string, refId: string): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    const msgType = message.msgType();
    const encoder = session.begin(MsgType.BusinessMessageReject).int(Tag.RefSeqNum, Math.max(0, message.msgSeqNum));
    if (/^[\x21-\x7e]{1,8}$/.test(msgType)) encoder.string(Tag.RefMsgType, msgType);
    encoder.int(Tag.BusinessRejectReason, reason);
    if (refId !== '') encoder.string(Tag.BusinessRejectRefID, refId);
    if (text !== '') encoder.string(Tag.Text, text);
    session.send();
  }

  /** Bills the REST-equivalent route (fix.md §1 "same token buckets and costs"); false = refused (380=8 sent). */
  admit(message: FixMessage, method: string, template: string, refId: string): boolean {
    const key = this.key;
    if (key === null) return false;
    const { cost } = costOf(method, template);
    if (this.ctx.rateLimiter.admit(key.keyId, key.tier, bucketOf(method, template), cost)) return true;
    this.businessReject(message, BusinessRejectReason.RATE_LIMIT_EXCEEDED, 'Rate limit exceeded', refId);
    return false;
  }

  /**
   * The checks a cancel (35=F) or a replace (35=G) shares on both exchanges: its tags and required
   * fields, ClOrdID and OrigClOrdID, trading scope and the token bucket of `method path`. Returns
   * the two ids, or null when the message was answered.
   */
  orderChangeIds(message: FixMessage, msgType: string, tags: ReadonlySet<number>, required: readonly number[], method: string, path: string): { clOrdId: string; origClOrdId: string } | null {
    if (!this.checkTags(message, msgType, tags)) return null;
    if (!this.checkRequired(message, msgType, required)) return null;
    const clOrdId = this.text(message, Tag.ClOrdID, 64);
    const origClOrdId = this.text(message, Tag.OrigClOrdID, 64);
    if (clOrdId === null || origClOrdId === null) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, clOrdId === null ? Tag.ClOrdID : Tag.OrigClOrdID, msgType, 'ClOrdID must be 1 to 64 printable characters');
      return null;
    }
    if (!this.mayTrade(message, clOrdId)) return null;
    if (!this.admit(message, method, path, clOrdId)) return null;
    return { clOrdId, origClOrdId };
  }

  /**
   * The checks of an OrderMassCancelRequest (35=q) both exchanges share: KalshiNR only, its tags,
   * ClOrdID, trading scope, one per second, the token bucket of `path`, and MassCancelRequestType 6
   * (anything else is answered here with 531=0). Returns what to cancel, or null when answered.
   * AllocAccount(79) narrows it to one subaccount (our extension, not in fix.md); a restricted
   * key's own is used whatever 79 says.
   */
  massCancelRequest(message: FixMessage, path: string, operationPrefix: string): { clOrdId: string; operationId: string; subaccount: number | null } | null {
    const msgType = MsgType.OrderMassCancelRequest;
    if (this.sessionName !== 'KalshiNR') {
      this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, 'OrderMassCancelRequest is available on KalshiNR only', '');
      return null;
    }
    if (!this.checkTags(message, msgType, MASS_CANCEL_TAGS)) return null;
    if (!this.checkRequired(message, msgType, [Tag.ClOrdID, Tag.MassCancelRequestType])) return null;
    const clOrdId = this.text(message, Tag.ClOrdID, 64);
    if (clOrdId === null) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.ClOrdID, msgType, 'ClOrdID must be 1 to 64 printable characters');
      return null;
    }
    if (!this.mayTrade(message, clOrdId)) return null;
    const now = this.ctx.now();
    if (this.#lastMassCancelMs >= 0 && now - this.#lastMassCancelMs < this.ctx.massCancelIntervalMs) {
      this.businessReject(message, BusinessRejectReason.RATE_LIMIT_EXCEEDED, 'OrderMassCancelRequest is limited to 1 per second', clOrdId);
      return null;
    }
    if (!this.admit(message, 'DELETE', path, clOrdId)) return null;
    this.#lastMassCancelMs = now;
    const operationId = `${operationPrefix}-${++this.#massCancelCount}`;
    if (!message.valueEquals(Tag.MassCancelRequestType, '6')) {
      this.session!.begin(MsgType.OrderMassCancelReport).string(Tag.ClOrdID, clOrdId).string(Tag.OrderID, operationId)
        .string(Tag.MassCancelResponse, '0').int(Tag.MassCancelRejectReason, 0).string(Tag.Text, 'MassCancelRequestType must be 6');
      this.session!.send();
      return null;
    }
    const requested = message.has(Tag.AllocAccount) ? message.getInt(Tag.AllocAccount) : null;
    const subaccount = this.key?.subaccount ?? (requested === null || requested === INT_INVALID ? null : requested);
    return { clOrdId, operationId, subaccount };
  }

  /**
   * The OrderGroupRequest (35=UOG, fix.md §6) checks both exchanges' order entry share: tags,
   * OrderGroupAction 1-5, OrderGroupID absent on create and valid (`isGroupId`, its rule in
   * `idRule`) otherwise, the contracts limit on create and update, trading scope, the token bucket
   * of the exchange's create or reset path, and AllocAccount(79) against the key's lock (refused:
   * 380=0 ORDER_GROUP_NOT_FOUND, the group being scoped to its subaccount). Null when answered here.
   */
  orderGroupRequest(message: FixMessage, isGroupId: (id: string) => boolean, idRule: string, groupsPath: string): OrderGroupRequest | null {
    const msgType = MsgType.OrderGroupRequest;
    if (!this.checkTags(message, msgType, ORDER_GROUP_TAGS)) return null;
    if (!this.checkRequired(message, msgType, [Tag.OrderGroupAction])) return null;
    const action = message.getInt(Tag.OrderGroupAction);
    if (action < 1 || action > 5) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.OrderGroupAction, msgType, 'OrderGroupAction must be 1 to 5');
      return null;
    }
    const groupId = message.getString(Tag.OrderGroupID);
    if (action === 1 && groupId !== null) {
      this.sessionReject(message, SessionRejectReason.TAG_NOT_DEFINED_FOR_MSG_TYPE, Tag.OrderGroupID, msgType, 'OrderGroupID must not be sent on Create');
      return null;
    }
    if (action !== 1 && (groupId === null || !isGroupId(groupId))) {
      this.sessionReject(message, groupId === null ? SessionRejectReason.REQUIRED_TAG_MISSING : SessionRejectReason.INCORRECT_DATA_FORMAT, Tag.OrderGroupID, msgType, `OrderGroupID must be ${idRule}`);
      return null;
    }
    let limit: number | null = null;
    if (action === 1 || action === 5) {
      const contracts = message.getInt(Tag.OrderGroupContractsLimit);
      if (contracts === INT_INVALID || contracts < 1 || contracts > GROUP_CONTRACTS_MAX) {
        this.sessionReject(message, message.has(Tag.OrderGroupContractsLimit) ? SessionRejectReason.VALUE_INCORRECT : SessionRejectReason.REQUIRED_TAG_MISSING,
          Tag.OrderGroupContractsLimit, msgType, 'OrderGroupContractsLimit must be 1 to 1,000,000');
        return null;
      }
      limit = contracts * 100;
    }
    if (!this.mayTrade(message, groupId ?? '')) return null;
    const template = action === 1 ? `${groupsPath}/create` : `${groupsPath}/{order_group_id}/reset`;
    if (!this.admit(message, action === 1 ? 'POST' : 'PUT', template, groupId ?? '')) return null;
    const requested = message.has(Tag.AllocAccount) ? message.getInt(Tag.AllocAccount) : null;
    const subaccount = resolveSubaccount(this.key, requested === INT_INVALID ? null : requested, 0);
    if (subaccount === SUBACCOUNT_FORBIDDEN) {
      this.businessReject(message, BusinessRejectReason.OTHER, 'ORDER_GROUP_NOT_FOUND', groupId ?? '');
      return null;
    }
    return { action, groupId: groupId ?? '', limit, subaccount };
  }

  /** Listener sessions and keys without a trading scope may not trade (fix.md §3, 380=6). */
  mayTrade(message: FixMessage, refId: string): boolean {
    if (!this.listener && this.key !== null && scopesAllow(this.key.scopes, 'trade')) return true;
    this.businessReject(message, BusinessRejectReason.NOT_AUTHORIZED, this.listener ? 'Listener session cannot trade' : 'API key lacks a trading scope', refId);
    return false;
  }

  /** AllocAccount(79) resolved against the key's subaccount lock (omitted: the lock, or 0); SUBACCOUNT_FORBIDDEN when refused. */
  subaccountOf(message: FixMessage): number {
    let requested: number | null = null;
    if (message.has(Tag.AllocAccount)) {
      const value = message.getInt(Tag.AllocAccount);
      if (value === INT_INVALID || value < 0 || value > 63) return SUBACCOUNT_FORBIDDEN;
      requested = value;
    }
    return resolveSubaccount(this.key, requested, 0);
  }

  /** A printable string value of at most `max` characters, or null. */
  text(message: FixMessage, tag: number, max: number): string | null {
    const value = message.getString(tag);
    if (value === null || value.length === 0 || value.length > max || !/^[\x20-\x7e]+$/.test(value)) return null;
    return value;
  }
}
