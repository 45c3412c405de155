/**
 * The drop-copy session (KalshiDC, fix.md §3): query and replay, not a live feed. An
 * EventResendRequest (U1) names BeginExecID and optionally EndExecID (inclusive, same exchange
 * index; End defaults to the latest on that index); the session replays the user's execution
 * reports in that range with new sequence numbers, then EventResendComplete (U2) with the count, or
 * EventResendReject (U3): 1 too many requests (one U1 per second), 2 server error, 3 BeginExecID too
 * old (before the 3 h lookback or an earlier run), 4 EndExecID too large (or on another index).
 * Rejects and pending reports (ExecID -1;-1) are never replayed. Everything else is refused with
 * BusinessMessageReject 380=3. The Margin exchange's KalshiDC is this class over the Margin hub's
 * log and ExecIDs (margin-fix-hub.ts), billed as GET /margin/fills.
 */

import { BusinessRejectReason, MsgType, SessionRejectReason, Tag, type FixMessage, type SessionKind } from '../../../fix/index.ts';
import { allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { parseExecId, writeExecutionReport, type ExecIdSource, type ExecutionReportRecord } from './execution-report.ts';

/** Where the replayed reports come from: the Predictions ReportHub or the Margin hub. */
export interface DropCopySource {
  readonly execIds: ExecIdSource;
  dropCopyRange(userId: string, index: number, first: number, last: number): ExecutionReportRecord[];
  dropCopyEvictedThrough(userId: string, index: number): number;
}

const EVENT_RESEND_TAGS = allowedTags([Tag.BeginExecID, Tag.EndExecID]);
const RESEND_INTERVAL_MS = 1000;
/** Replayed reports per request; a larger range is answered up to here (then U2 with that count). */
const REPLAY_MAX = 10_000;

export const EventResendRejectReason = { TOO_MANY_REQUESTS: 1, SERVER_ERROR: 2, BEGIN_TOO_OLD: 3, END_TOO_LARGE: 4 } as const;

export class DropCopyConnection extends ConnectionBase {
  #lastRequestMs = -1;
  readonly #source: DropCopySource;
  readonly #billedAs: string;

  /** `source`: the exchange whose reports are replayed (default the Predictions hub); `billedAs`: the REST read it replaces. */
  constructor(ctx: AcceptorContext, sessionName: string, source: DropCopySource = ctx.hub, billedAs = '/portfolio/fills') {
    super(ctx, sessionName);
    this.#source = source;
    this.#billedAs = billedAs;
  }

  protected handle(message: FixMessage, msgType: string): void {
    if (msgType !== MsgType.EventResendRequest) {
      if (Object.values(MsgType).includes(msgType as MsgType)) {
        this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on KalshiDC`, '');
      } else {
        this.sessionReject(message, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, msgType, 'Invalid MsgType');
      }
      return;
    }
    if (!this.checkTags(message, msgType, EVENT_RESEND_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.BeginExecID])) return;
    const begin = parseExecId(message.getString(Tag.BeginExecID) ?? '');
    if (begin === null) return this.sessionReject(message, SessionRejectReason.INCORRECT_DATA_FORMAT, Tag.BeginExecID, msgType, 'BeginExecID must be clock;event[;index]');
    const endText = message.getString(Tag.EndExecID);
    const end = endText === null ? null : parseExecId(endText);
    if (endText !== null && end === null) return this.sessionReject(message, SessionRejectReason.INCORRECT_DATA_FORMAT, Tag.EndExecID, msgType, 'EndExecID must be clock;event[;index]');
    const now = this.ctx.now();
    if (this.#lastRequestMs >= 0 && now - this.#lastRequestMs < RESEND_INTERVAL_MS) return this.#reject(message, EventResendRejectReason.TOO_MANY_REQUESTS);
    if (!this.admit(message, 'GET', this.#billedAs, '')) return; // billed as the REST read it replaces
    this.#lastRequestMs = now;
    const hub = this.#source;
    const clock = hub.execIds.clock;
    const index = begin.index;
    const latest = hub.execIds.last(index);
    if (begin.clock < clock || begin.event <= hub.dropCopyEvictedThrough(this.userId, index)) return this.#reject(message, EventResendRejectReason.BEGIN_TOO_OLD);
    if (begin.clock > clock || begin.event > latest) return this.#reject(message, EventResendRejectReason.END_TOO_LARGE);
    let last = latest;
    if (end !== null) {
      if (end.index !== index || end.clock !== clock || end.event > latest || end.event < begin.event) return this.#reject(message, EventResendRejectReason.END_TOO_LARGE);
      last = end.event;
    }
    const records = hub.dropCopyRange(this.userId, index, begin.event, last);
    const session = this.session!;
    let sent = 0;
    for (const record of records) {
      if (sent === REPLAY_MAX || session.state !== 'active') break;
      writeExecutionReport(session.begin(MsgType.ExecutionReport), record, this.flags);
      session.send();
      sent++;
    }
    if (session.state !== 'active') return;
    session.begin(MsgType.EventResendComplete).int(Tag.RefSeqNum, message.msgSeqNum).int(Tag.ResendEventCount, sent);
    session.send();
  }

  #reject(message: FixMessage, reason: number): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    session.begin(MsgType.EventResendReject).int(Tag.RefSeqNum, message.msgSeqNum).int(Tag.EventResendRejectReason, reason);
    session.send();
  }
}

/** The Margin exchange's KalshiDC: the Margin hub's reports, always in dollars (fix.md §1 Margin: 21005 always on). */
export class MarginDropCopyConnection extends DropCopyConnection {
  constructor(ctx: AcceptorContext, sessionName: string, source: DropCopySource) {
    super(ctx, sessionName, source, '/margin/fills');
  }

  override authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    const refusal = super.authorize(logon, keyId, kind);
    if (refusal === null) this.flags.dollars = true;
    return refusal;
  }
}
