/**
 * One post-trade connection (KalshiPT, fix.md §1, §9): read-only, retransmitting. It receives
 * MarketSettlementReport (35=UMS) pages for the markets its user held positions in, unless the
 * Logon said ReceiveSettlementReports(20127)=N (default Y on PT). Any application message from the
 * client is refused with BusinessMessageReject 380=3. Resend and gap fill are the session layer's
 * (src/fix: KalshiPT retransmits; its store outlives the connection, fix-acceptor.ts).
 */

import { BusinessRejectReason, MsgType, Tag, type FixMessage, type SessionKind } from '../../../fix/index.ts';
import { ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { writeSettlementReport, type SettlementPage } from './settlement-reports.ts';

export class PostTradeConnection extends ConnectionBase {
  /** 20127: Y by default on PT. */
  receiveSettlementReports = true;
  /** Set by the acceptor: registers and unregisters the live connection. */
  onLive: ((connection: PostTradeConnection, live: boolean) => void) | null = null;

  constructor(ctx: AcceptorContext, sessionName: string) {
    super(ctx, sessionName);
  }

  override authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    const key = this.ctx.keys.get(keyId);
    // fix.md §2: a subaccount-restricted key may open NR and MD (and RFQ as maker), not PT.
    if (key !== undefined && key.subaccount !== null) return 'A subaccount-restricted API key may not open KalshiPT';
    if (logon.getFlag(Tag.ListenerSession)) return 'ListenerSession(20126) is allowed on KalshiNR and KalshiRT only';
    const refusal = super.authorize(logon, keyId, kind);
    if (refusal !== null) return refusal;
    this.receiveSettlementReports = !logon.valueEquals(Tag.ReceiveSettlementReports, 'N');
    return null;
  }

  /** Sends one page now; false when the session is not active. */
  deliver(page: SettlementPage): boolean {
    const session = this.session;
    if (session === null || session.state !== 'active' || this.dropped) return false;
    writeSettlementReport(session.begin(MsgType.MarketSettlementReport), page);
    session.send();
    return true;
  }

  protected override onLogon(): void {
    this.onLive?.(this, true);
  }

  protected override onClosed(): void {
    this.onLive?.(this, false);
  }

  protected handle(message: FixMessage, msgType: string): void {
    this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on KalshiPT (read only)`, '');
  }
}
