/**
 * The FIXT.1.1 session state machine for both ends: the runtime's initiator and the simulator's
 * acceptor. It is transport-agnostic: bytes come in through receive(), go out through the
 * FixTransport given to connect(), and time moves only when the owner calls tick() (one shared
 * tick, an injected clock). It owns logon (signed, fix.md §2), heartbeats and test requests,
 * sequence numbers, gap detection and recovery on the sessions that retransmit (KalshiRT, KalshiPT),
 * Reject and Logout. It never interprets application messages: those go to FixApplication.onMessage
 * in sequence, exactly once per sequence number (a replay carries PossDupFlag 43=Y).
 *
 *   initiator: idle -connect-> logon-sent -Logon-> active -logout()-> logout-sent -Logout-> closed
 *   acceptor:  idle -connect-> awaiting-logon -valid Logon-> active ... closed
 *   any state -transport closed / refused / timeout-> closed   (connect() again to reconnect)
 */

import type { KeyObject } from 'node:crypto';
import { systemClock, type Clock } from '../core/index.ts';
import { FixEncoder } from './encoder.ts';
import { FixError } from './fix-error.ts';
import { formatUtcTimestamp, INT_INVALID } from './field-codec.ts';
import { signLogon, verifyLogon } from './logon-signature.ts';
import { FixMessage, REJECT_NONE } from './message.ts';
import { FixFramer, parseMessage } from './parser.ts';
import type { SequenceStore } from './sequence-store.ts';
import type { FixSessionRegistry } from './session-registry.ts';
import {
  DEFAULT_APPL_VER_ID, isAdminMsgType, MsgType, SessionRejectReason, sessionKindOf, Tag, type SessionKind,
} from './tags.ts';

export interface FixTransport {
  /** Sends bytes. They are a view of a reused buffer: copy them if they are queued. */
  write(bytes: Uint8Array): void;
  /** Closes the connection; the owner then calls session.disconnected(). */
  end(): void;
  /**
   * The keep-warm's rehearsal of write(): does what write() does up to the socket (the copy into
   * the transport's own buffer when the socket holds none of an earlier write) and writes nothing.
   * Absent: nothing to rehearse.
   */
  rehearse?(bytes: Uint8Array): void;
}

export type FixSessionEventType =
  | 'logon' // the session is active
  | 'logon-refused' // a logon failed (text says why); the transport is being closed
  | 'logout' // the peer logged out (text is its Text(58))
  | 'closed' // the session ended; connect() may start it again
  | 'reject-sent' // we sent Reject(35=3)
  | 'reject-received' // the peer sent Reject(35=3)
  | 'resend-requested' // we sent ResendRequest(35=2) for a gap
  | 'gap' // a gap on a session without retransmission: messages lost, reconcile (fix.md §3)
  | 'timeout' // logon, logout or heartbeat answer not received in time
  | 'framing-error'; // the framer dropped bytes (code says which FixError)

export interface FixSessionEvent {
  readonly type: FixSessionEventType;
  readonly code: string;
  readonly text: string;
  /** The sequence number concerned (a rejected or missing message), 0 when none. */
  readonly seq: number;
}

export interface FixApplication {
  /** An in-sequence application message; the view is valid only during the call. */
  onMessage(message: FixMessage, session: FixSession): void;
  onEvent?(event: FixSessionEvent, session: FixSession): void;
}

interface CommonOptions {
  clock?: Clock;
  /** Largest |SendingTime - now| accepted (fix.md §1: 30 s, Reject 373=10); 0 disables the check. */
  sendingTimeToleranceMs?: number;
  /** Time allowed for the logon handshake and for the logout answer (default 10 s). */
  handshakeTimeoutMs?: number;
  /** Largest inbound or outbound message in bytes (default 65536). */
  messageBytesMax?: number;
}

export interface FixInitiatorOptions extends CommonOptions {
  role: 'initiator';
  /** TargetCompID: KalshiNR, KalshiRT, ... (or an alias such as ExchangeMD). */
  sessionName: string;
  /** SenderCompID: the API key id. */
  keyId: string;
  privateKey: KeyObject;
  /** HeartBtInt(108), seconds, > 3 on the Predictions exchange. */
  heartbeatIntervalS: number;
  store: SequenceStore;
  /** Send 141=Y and reset both sequence numbers at logon; default: what the session kind requires. */
  resetSeqNum?: boolean;
  /** Extra Logon fields in order, e.g. [[21005, 'Y'], [8013, 'Y']]. */
  logonFields?: ReadonlyArray<readonly [number, string]>;
  /** SenderCompID the server uses; default the session name (fix.md §1, inferred; §12 item 3). */
  serverCompId?: string;
}

export interface FixAcceptorOptions extends CommonOptions {
  role: 'acceptor';
  /** TargetCompIDs this listener accepts (each kind has its own port). */
  sessionNames: readonly string[];
  /** The registered public key of an API key id, null when unknown. */
  publicKeyOf(keyId: string): KeyObject | null;
  registry: FixSessionRegistry;
  /** The store of (key, session name); called once the logon is otherwise valid. */
  storeFor(keyId: string, sessionName: string): SequenceStore;
  /** Key restrictions and flag rules (fix.md §11 step 9): a refusal Text, or null to accept. */
  authorize?(logon: FixMessage, keyId: string, kind: SessionKind): string | null;
  /**
   * True while the transport holds more unsent bytes than the connection's output budget: a
   * resend pauses and continues on continueResend() (the owner calls it on the socket's 'drain').
   * Absent: a resend is written in steps of `resendStepMax` without waiting.
   */
  outputBlocked?(): boolean;
  /** Messages a resend writes per step before yielding to the owner's continueResend() (default: all). */
  resendStepMax?: number;
  /** Bills a ResendRequest to the owner's message-rate bound; false = refused (the owner has logged out). */
  admitResend?(): boolean;
  /**
   * The HeartBtInt(108) rule of the exchange behind this listener. Predictions (default): required,
   * > 3. Margin (fix.md §1): optional with a default of 30, >= 3.
   */
  heartbeat?: { minS: number; defaultS: number | null };
}

export type FixSessionOptions = FixInitiatorOptions | FixAcceptorOptions;
export type FixSessionState = 'idle' | 'logon-sent' | 'awaiting-logon' | 'active' | 'logout-sent' | 'closed';

const HEARTBEAT_INTERVAL_MIN_S = 4; // fix.md §1: HeartBtInt > 3
const PREDICTIONS_HEARTBEAT = { minS: HEARTBEAT_INTERVAL_MIN_S, defaultS: null };
const TEST_REQUEST_GRACE_PERCENT = 20; // silence of 1.2 x HeartBtInt before a TestRequest (§12 item 7)

export class FixSession {
  readonly #options: FixSessionOptions;
  readonly #application: FixApplication;
  readonly #clock: Clock;
  readonly #encoder: FixEncoder;
  readonly #framer: FixFramer;
  readonly #replayMessage = new FixMessage();
  readonly #toleranceMs: number;
  readonly #handshakeTimeoutMs: number;
  #transport: FixTransport | null = null;
  #store: SequenceStore | null;
  #state: FixSessionState = 'idle';
  #kind: SessionKind | null;
  #ourCompId: string;
  #peerCompId: string;
  #keyId: string;
  #claimed = false;
  #heartbeatIntervalS: number;
  #refusalSeq = 1; // numbers the Reject/Logout of a refused logon, which never touch a store
  #stateSinceMs = 0;
  #lastSentMs = 0;
  /** SendingTime of the message being built: the send reuses it instead of reading the clock again. */
  #buildingMs = 0;
  #lastReceivedMs = 0;
  #testRequestSentMs = -1;
  #testRequestCount = 0;
  #resendPending = false;
  #resendUntil = 0;
  /** The resend in progress (at most one per session): next MsgSeqNum to replay, 0 when none. */
  #replayNext = 0;
  #replayEnd = 0;
  #replayGapStart = -1;
  #building = false;
  #receiving = false;
  readonly #pendingChunks: Buffer[] = [];

  constructor(options: FixSessionOptions, application: FixApplication) {
    this.#options = options;
    this.#application = application;
    this.#clock = options.clock ?? systemClock;
    this.#toleranceMs = options.sendingTimeToleranceMs ?? 30_000;
    this.#handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
    const messageBytesMax = options.messageBytesMax ?? 65_536;
    this.#encoder = new FixEncoder({ messageBytesMax });
    this.#framer = new FixFramer({
      onMessage: (message) => this.#onMessage(message),
      onError: (error) => this.#onFramingError(error),
    }, { messageBytesMax });
    if (options.role === 'initiator') {
      this.#kind = sessionKindOf(options.sessionName);
      if (this.#kind === null) throw new FixError('FIX_VALUE_INVALID', `unknown session name ${options.sessionName}`);
      if (!(options.heartbeatIntervalS >= HEARTBEAT_INTERVAL_MIN_S)) throw new FixError('FIX_VALUE_INVALID', 'heartbeatIntervalS must be > 3');
      this.#store = options.store;
      this.#ourCompId = options.keyId;
      this.#peerCompId = options.serverCompId ?? options.sessionName;
      this.#keyId = options.keyId;
      this.#heartbeatIntervalS = options.heartbeatIntervalS;
    } else {
      this.#kind = null;
      this.#store = null;
      this.#ourCompId = '';
      this.#peerCompId = '';
      this.#keyId = '';
      this.#heartbeatIntervalS = 30;
    }
  }

  /** When the last message was sent (its SendingTime), epoch ms. */
  get lastSentMs(): number {
    return this.#lastSentMs;
  }

  get state(): FixSessionState {
    return this.#state;
  }
  /** The session kind (known for an acceptor once the Logon named it). */
  get kind(): SessionKind | null {
    return this.#kind;
  }
  /** The API key id of the session (the acceptor learns it from the Logon). */
  get keyId(): string {
    return this.#keyId;
  }
  get heartbeatIntervalS(): number {
    return this.#heartbeatIntervalS;
  }
  get nextOutgoing(): number {
    return this.#store === null ? 1 : this.#store.nextOutgoing();
  }
  get nextIncoming(): number {
    return this.#store === null ? 1 : this.#store.nextIncoming();
  }
  /** True while a resend is in progress (paused on the output budget or between steps). */
  get resending(): boolean {
    return this.#replayNext !== 0;
  }

  /** Continues a paused resend (the transport drained, or the previous step ended). */
  continueResend(): void {
    if (this.#replayNext !== 0 && this.#state === 'active') this.#pumpResend();
  }

  /** The transport is up: an initiator sends its signed Logon, an acceptor waits for one. */
  connect(transport: FixTransport): void {
    this.#transport = transport;
    this.#framer.reset();
    const now = this.#clock.nowMs();
    this.#stateSinceMs = now;
    this.#lastReceivedMs = now;
    this.#testRequestSentMs = -1;
    this.#resendPending = false;
    this.#refusalSeq = 1;
    if (this.#options.role === 'acceptor') {
      this.#state = 'awaiting-logon';
      return;
    }
    this.#state = 'logon-sent';
    this.#sendLogon(this.#options);
  }

  /** Bytes from the transport, in order, split anywhere. */
  receive(chunk: Uint8Array): void {
    if (this.#state === 'idle' || this.#state === 'closed') return;
    if (this.#receiving) {
      // Re-entered from our own write through a synchronous transport: finish the current chunk first.
      this.#pendingChunks.push(Buffer.from(chunk));
      return;
    }
    this.#receiving = true;
    try {
      this.#lastReceivedMs = this.#clock.nowMs();
      this.#testRequestSentMs = -1; // any traffic proves the peer alive
      this.#framer.push(chunk);
      // A handler may have closed the session meanwhile (the read of #state is not narrowed by the check above).
      for (let i = 0; i < this.#pendingChunks.length && (this.#state as FixSessionState) !== 'closed'; i++) {
        this.#framer.push(this.#pendingChunks[i]);
      }
    } finally {
      this.#pendingChunks.length = 0;
      this.#receiving = false;
    }
  }

  /** The transport closed (by either side). */
  disconnected(): void {
    if (this.#state === 'closed' || this.#state === 'idle') return;
    this.#finish();
  }

  /** Drives heartbeats, test requests and timeouts; call about once a second. */
  tick(): void {
    const now = this.#clock.nowMs();
    switch (this.#state) {
      case 'logon-sent':
      case 'awaiting-logon':
      case 'logout-sent':
        if (now - this.#stateSinceMs >= this.#handshakeTimeoutMs) {
          this.#emit('timeout', 'FIX_HANDSHAKE_TIMEOUT', `no answer in ${this.#state}`, 0);
          this.#close();
        }
        return;
      case 'active': {
        const intervalMs = this.#heartbeatIntervalS * 1000;
        if (this.#testRequestSentMs >= 0 && now - this.#testRequestSentMs >= intervalMs) {
          this.#emit('timeout', 'FIX_HEARTBEAT_TIMEOUT', 'no answer to TestRequest', 0);
          this.#close();
          return;
        }
        if (this.#testRequestSentMs < 0 && now - this.#lastReceivedMs >= intervalMs + (intervalMs * TEST_REQUEST_GRACE_PERCENT) / 100) {
          this.#testRequestCount++;
          this.#begin(MsgType.TestRequest).string(Tag.TestReqID, `TEST${this.#testRequestCount}`);
          this.#sendBuilt();
          this.#testRequestSentMs = now;
        }
        if (now - this.#lastSentMs >= intervalMs) {
          this.#begin(MsgType.Heartbeat);
          this.#sendBuilt();
        }
        return;
      }
      default:
        return;
    }
  }

  /**
   * Starts an application message with its header (49, 56, 34, 52) written; fill the body on the
   * returned encoder, then call send(). Throws FIX_NOT_LOGGED_ON unless the session is active.
   */
  begin(msgType: string): FixEncoder {
    if (this.#state !== 'active') throw new FixError('FIX_NOT_LOGGED_ON', `cannot send ${msgType} in state ${this.#state}`);
    this.#building = true;
    return this.#begin(msgType);
  }

  /** Sends the message begun with begin(); returns its MsgSeqNum. */
  send(): number {
    if (!this.#building) throw new FixError('FIX_NOT_LOGGED_ON', 'send() without begin()');
    this.#building = false;
    if (this.#state !== 'active') throw new FixError('FIX_NOT_LOGGED_ON', `cannot send in state ${this.#state}`);
    return this.#sendBuilt();
  }

  /**
   * The keep-warm's rehearsal of send(): finishes the message begun with begin() in the encoder's
   * buffer (body length, checksum) and hands it to the transport's rehearse(), as send() would to
   * its write(), then drops it: it is not numbered (the next send() takes the same MsgSeqNum),
   * stored or written. Returns its length in bytes.
   */
  rehearseSend(): number {
    if (!this.#building) throw new FixError('FIX_NOT_LOGGED_ON', 'rehearseSend() without begin()');
    this.#building = false;
    const bytes = this.#encoder.finish();
    this.#transport?.rehearse?.(bytes);
    return bytes.length;
  }

  /** Starts a graceful logout; the transport closes when the peer answers (or on timeout). */
  logout(text = ''): void {
    if (this.#state !== 'active') {
      if (this.#state !== 'closed' && this.#state !== 'idle') this.#close();
      return;
    }
    this.#sendLogout(text);
    this.#state = 'logout-sent';
    this.#stateSinceMs = this.#clock.nowMs();
  }

  // ---- inbound ----

  #onFramingError(error: FixError): void {
    this.#emit('framing-error', error.code, error.message, 0);
    if (error.action !== 'disconnect') return;
    if (this.#state === 'active') this.#sendLogout(error.message);
    this.#close();
  }

  #onMessage(message: FixMessage): void {
    const msgType = message.msgType();
    switch (this.#state) {
      case 'awaiting-logon':
        this.#onLogonRequest(message, msgType, this.#options as FixAcceptorOptions);
        return;
      case 'logon-sent':
        this.#onLogonReply(message, msgType);
        return;
      case 'active':
      case 'logout-sent':
        this.#onSessionMessage(message, msgType);
        return;
      default:
        return;
    }
  }

  /** Header checks of fix.md §1 and §3; false when the message was answered and must go no further. */
  #checkHeader(message: FixMessage, msgType: string): boolean {
    const seq = message.msgSeqNum;
    if (seq === INT_INVALID || seq < 1) {
      this.#logoutAndClose('MsgSeqNum(34) missing or invalid'); // §3: a message without MsgSeqNum ends the session
      return false;
    }
    if (!message.valueEquals(Tag.SenderCompID, this.#peerCompId) || !message.valueEquals(Tag.TargetCompID, this.#ourCompId)) {
      const tag = message.valueEquals(Tag.SenderCompID, this.#peerCompId) ? Tag.TargetCompID : Tag.SenderCompID;
      this.#rejectAndConsume(seq, SessionRejectReason.COMP_ID_PROBLEM, tag, msgType, 'CompID problem');
      this.#logoutAndClose('CompID problem');
      return false;
    }
    const sendingTimeMs = message.getTimestamp(Tag.SendingTime);
    if (sendingTimeMs < 0) {
      const missing = !message.has(Tag.SendingTime);
      this.#rejectAndConsume(seq, missing ? SessionRejectReason.REQUIRED_TAG_MISSING : SessionRejectReason.INCORRECT_DATA_FORMAT,
        Tag.SendingTime, msgType, missing ? 'Required tag missing' : 'Incorrect data format for value');
      return false;
    }
    if (this.#toleranceMs > 0 && Math.abs(sendingTimeMs - this.#clock.nowMs()) > this.#toleranceMs) {
      this.#rejectAndConsume(seq, SessionRejectReason.SENDING_TIME_ACCURACY, Tag.SendingTime, msgType, 'SendingTime accuracy problem');
      return false;
    }
    if (message.getFlag(Tag.PossDupFlag) && !message.has(Tag.OrigSendingTime)) {
      this.#rejectAndConsume(seq, SessionRejectReason.REQUIRED_TAG_MISSING, Tag.OrigSendingTime, msgType, 'Required tag missing');
      return false;
    }
    return true;
  }

  #onSessionMessage(message: FixMessage, msgType: string): void {
    if (!this.#checkHeader(message, msgType)) return;
    const store = this.#store as SequenceStore;
    const seq = message.msgSeqNum;
    if (msgType === MsgType.SequenceReset && !message.getFlag(Tag.GapFillFlag)) {
      this.#onSequenceReset(message, seq); // reset mode ignores MsgSeqNum
      return;
    }
    const expected = store.nextIncoming();
    if (seq < expected) {
      if (message.getFlag(Tag.PossDupFlag)) return; // a duplicate of what we already have
      this.#logoutAndClose(`MsgSeqNum too low, expecting ${expected} but received ${seq}`);
      return;
    }
    if (seq > expected) {
      if (msgType === MsgType.ResendRequest) this.#onResendRequest(message); // answer it before our own request
      if (msgType === MsgType.Logout) {
        this.#onLogout(message);
        return;
      }
      if (!this.#onGap(expected, seq)) return;
    }
    store.setNextIncoming(seq + 1);
    if (message.rejectReason !== REJECT_NONE) {
      this.#sendReject(seq, message.rejectReason, message.rejectTag, msgType, 'Invalid field');
    } else {
      this.#dispatch(message, msgType, seq);
    }
    if (this.#resendPending && store.nextIncoming() > this.#resendUntil) this.#resendPending = false;
  }

  /** A higher MsgSeqNum than expected; true when the message should still be processed. */
  #onGap(expected: number, seq: number): boolean {
    if ((this.#kind as SessionKind).retransmits) {
      if (!this.#resendPending) {
        this.#begin(MsgType.ResendRequest).int(Tag.BeginSeqNo, expected).int(Tag.EndSeqNo, 0);
        this.#sendBuilt();
        this.#resendPending = true;
        this.#emit('resend-requested', 'FIX_SEQ_GAP', `resend ${expected} to ${seq - 1}`, expected);
      }
      if (seq > this.#resendUntil) this.#resendUntil = seq;
      return false; // dropped: it comes again in the replay
    }
    // fix.md §3: no recovery on NR/DC/RFQ/MD; accept and tell the owner to reconcile.
    this.#emit('gap', 'FIX_SEQ_GAP', `messages ${expected} to ${seq - 1} lost`, expected);
    return true;
  }

  #dispatch(message: FixMessage, msgType: string, seq: number): void {
    switch (msgType) {
      case MsgType.Heartbeat:
        return;
      case MsgType.TestRequest: {
        const i = message.indexOf(Tag.TestReqID);
        if (i === -1) {
          this.#sendReject(seq, SessionRejectReason.REQUIRED_TAG_MISSING, Tag.TestReqID, msgType, 'Required tag missing');
          return;
        }
        this.#begin(MsgType.Heartbeat).bytes(Tag.TestReqID, message.bytes, message.valueStartAt(i), message.valueEndAt(i));
        this.#sendBuilt();
        return;
      }
      case MsgType.ResendRequest:
        this.#onResendRequest(message);
        return;
      case MsgType.Reject:
        this.#emit('reject-received', 'FIX_REJECT', message.getString(Tag.Text) ?? '', message.getInt(Tag.RefSeqNum));
        return;
      case MsgType.SequenceReset:
        this.#onGapFill(message, seq);
        return;
      case MsgType.Logout:
        this.#onLogout(message);
        return;
      case MsgType.Logon:
        this.#logoutAndClose('Logon received on an active session');
        return;
      default:
        if (this.#state === 'active') this.#application.onMessage(message, this);
    }
  }

  #onLogout(message: FixMessage): void {
    this.#emit('logout', 'FIX_LOGOUT', message.getString(Tag.Text) ?? '', message.msgSeqNum);
    if (this.#state === 'active') this.#sendLogout(''); // §2: the answer to a graceful Logout has no Text
    this.#close();
  }

  #onGapFill(message: FixMessage, seq: number): void {
    if (!(this.#kind as SessionKind).retransmits) {
      this.#sendReject(seq, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, MsgType.SequenceReset, 'SequenceReset not supported on this session');
      return;
    }
    const newSeq = message.getInt(Tag.NewSeqNo);
    if (newSeq === INT_INVALID || newSeq <= seq) {
      this.#sendReject(seq, SessionRejectReason.VALUE_INCORRECT, Tag.NewSeqNo, MsgType.SequenceReset, 'NewSeqNo must be above MsgSeqNum');
      return;
    }
    (this.#store as SequenceStore).setNextIncoming(newSeq);
  }

  #onSequenceReset(message: FixMessage, seq: number): void {
    const store = this.#store as SequenceStore;
    if (!(this.#kind as SessionKind).retransmits) {
      this.#rejectAndConsume(seq, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, MsgType.SequenceReset, 'SequenceReset not supported on this session');
      return;
    }
    const newSeq = message.getInt(Tag.NewSeqNo);
    if (newSeq === INT_INVALID || newSeq < store.nextIncoming()) {
      this.#sendReject(seq, SessionRejectReason.VALUE_INCORRECT, Tag.NewSeqNo, MsgType.SequenceReset, 'NewSeqNo below the expected MsgSeqNum');
      return;
    }
    store.setNextIncoming(newSeq);
    if (this.#resendPending && newSeq > this.#resendUntil) this.#resendPending = false;
  }

  /**
   * Replays [BeginSeqNo, EndSeqNo]: application messages resent with 43=Y/122, session ones
   * gap-filled. Streamed: one resend at a time per session (a second ResendRequest while one runs
   * is answered Reject 373=5 and the first goes on), paused while the output budget is exceeded.
   */
  #onResendRequest(message: FixMessage): void {
    const seq = message.msgSeqNum;
    const store = this.#store as SequenceStore;
    if (!(this.#kind as SessionKind).retransmits) {
      this.#sendReject(seq, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, MsgType.ResendRequest, 'ResendRequest not supported on this session');
      return;
    }
    const options = this.#options;
    if (options.role === 'acceptor' && options.admitResend !== undefined && !options.admitResend()) return;
    const begin = message.getInt(Tag.BeginSeqNo);
    let end = message.getInt(Tag.EndSeqNo);
    if (begin === INT_INVALID || end === INT_INVALID || begin < 1 || end < 0) {
      this.#sendReject(seq, SessionRejectReason.REQUIRED_TAG_MISSING, begin === INT_INVALID ? Tag.BeginSeqNo : Tag.EndSeqNo,
        MsgType.ResendRequest, 'BeginSeqNo and EndSeqNo required');
      return;
    }
    if (this.#replayNext !== 0) {
      this.#sendReject(seq, SessionRejectReason.VALUE_INCORRECT, Tag.BeginSeqNo, MsgType.ResendRequest, 'ResendRequest already in progress');
      return;
    }
    const last = store.nextOutgoing() - 1;
    if (end === 0 || end > last) end = last; // 16=0: up to the latest (standard FIX; §12 item 6)
    if (begin > end) return; // nothing sent in that range yet
    if (begin < store.oldestOutgoing()) {
      // fix.md §3: a BeginSeqNo outside the retention window is answered with a Reject.
      this.#sendReject(seq, SessionRejectReason.VALUE_INCORRECT, Tag.BeginSeqNo, MsgType.ResendRequest, 'BeginSeqNo outside the retention window');
      return;
    }
    this.#replayNext = begin;
    this.#replayEnd = end;
    this.#replayGapStart = -1;
    this.#pumpResend();
  }

  /** Writes the resend in progress until it ends, the output budget is exceeded, or a step is done. */
  #pumpResend(): void {
    const store = this.#store as SequenceStore;
    const options = this.#options;
    const blocked = options.role === 'acceptor' ? options.outputBlocked : undefined;
    let stepLeft = options.role === 'acceptor' ? options.resendStepMax ?? Infinity : Infinity;
    while (this.#replayNext <= this.#replayEnd) {
      if (this.#transport === null || stepLeft-- <= 0 || (blocked !== undefined && blocked())) return;
      const current = this.#replayNext++;
      const stored = store.loadOutgoing(current);
      const parsed = stored === null ? null : parseMessage(stored, this.#replayMessage);
      if (!(parsed instanceof FixMessage) || isAdminMsgType(parsed.msgType())) {
        if (this.#replayGapStart === -1) this.#replayGapStart = current;
        continue;
      }
      if (this.#replayGapStart !== -1) this.#sendGapFill(this.#replayGapStart, current);
      this.#replayGapStart = -1;
      this.#resend(parsed, current);
    }
    if (this.#replayGapStart !== -1) this.#sendGapFill(this.#replayGapStart, this.#replayEnd + 1);
    this.#replayNext = 0;
    this.#replayGapStart = -1;
  }

  #resend(original: FixMessage, seq: number): void {
    const i = original.indexOf(Tag.SendingTime);
    const encoder = this.#encoder.begin(original.msgType(), this.#ourCompId, this.#peerCompId, seq, this.#clock.nowMs())
      .flag(Tag.PossDupFlag, true);
    if (i !== -1) encoder.bytes(Tag.OrigSendingTime, original.bytes, original.valueStartAt(i), original.valueEndAt(i));
    this.#write(encoder.copyBody(original).finish());
  }

  #sendGapFill(seq: number, newSeq: number): void {
    const now = this.#clock.nowMs();
    this.#write(this.#encoder.begin(MsgType.SequenceReset, this.#ourCompId, this.#peerCompId, seq, now)
      .flag(Tag.PossDupFlag, true).timestamp(Tag.OrigSendingTime, now)
      .flag(Tag.GapFillFlag, true).int(Tag.NewSeqNo, newSeq).finish());
  }

  // ---- logon ----

  #sendLogon(options: FixInitiatorOptions): void {
    const store = options.store;
    const reset = options.resetSeqNum ?? (this.#kind as SessionKind).resetSeqNumRequired;
    if (reset) store.reset();
    const seq = store.nextOutgoing();
    const now = this.#clock.nowMs();
    this.#buildingMs = now;
    // The signed SendingTime must equal tag 52 byte for byte: both come from the same formatter.
    const signature = signLogon(options.privateKey, formatUtcTimestamp(now), String(seq), options.keyId, options.sessionName);
    const encoder = this.#encoder.begin(MsgType.Logon, this.#ourCompId, options.sessionName, seq, now)
      .int(Tag.EncryptMethod, 0).int(Tag.HeartBtInt, options.heartbeatIntervalS)
      .data(Tag.RawDataLength, Tag.RawData, signature);
    if (reset) encoder.flag(Tag.ResetSeqNumFlag, true);
    encoder.string(Tag.DefaultApplVerID, DEFAULT_APPL_VER_ID);
    const fields = options.logonFields ?? [];
    for (let i = 0; i < fields.length; i++) encoder.string(fields[i][0], fields[i][1]);
    this.#sendBuilt();
  }

  #onLogonReply(message: FixMessage, msgType: string): void {
    if (msgType === MsgType.Logout) {
      this.#emit('logon-refused', 'FIX_LOGON_REFUSED', message.getString(Tag.Text) ?? '', message.msgSeqNum);
      this.#close();
      return;
    }
    if (msgType === MsgType.Reject) {
      this.#emit('reject-received', 'FIX_REJECT', message.getString(Tag.Text) ?? '', message.getInt(Tag.RefSeqNum));
      return; // a Logout follows
    }
    if (msgType !== MsgType.Logon) {
      this.#logoutAndClose('Logon expected');
      return;
    }
    if (!this.#checkHeader(message, msgType)) return;
    const store = this.#store as SequenceStore;
    const seq = message.msgSeqNum;
    const expected = store.nextIncoming();
    if (seq < expected) {
      this.#logoutAndClose(`MsgSeqNum too low, expecting ${expected} but received ${seq}`);
      return;
    }
    this.#state = 'active';
    this.#stateSinceMs = this.#clock.nowMs();
    this.#emit('logon', 'FIX_LOGON', '', seq);
    // A gap at logon: on RT/PT the server's replay gap-fills its own Logon, so expected stays put.
    if (seq === expected || this.#onGap(expected, seq)) store.setNextIncoming(seq + 1);
  }

  /** fix.md §11 logon checks, in its order, for the acceptor. */
  #onLogonRequest(message: FixMessage, msgType: string, options: FixAcceptorOptions): void {
    // Until the checks pass, answers go to the CompIDs the Logon itself carries.
    // Bounded: an overlong CompID is never echoed (the refusal goes to 'unknown').
    this.#ourCompId = printableOr(message, Tag.TargetCompID, 'unknown');
    this.#peerCompId = printableOr(message, Tag.SenderCompID, 'unknown');
    if (msgType !== MsgType.Logon) return this.#refuse('First message must be Logon', false);
    if (message.rejectReason !== REJECT_NONE) return this.#refuse(`Invalid Logon field ${message.rejectTag}`, true);
    if (compIdTooLong(message, Tag.SenderCompID) || compIdTooLong(message, Tag.TargetCompID)) {
      return this.#refuse(`SenderCompID(49) and TargetCompID(56) are at most ${COMP_ID_CHARS_MAX} characters`, true);
    }
    const sendingTimeMs = message.getTimestamp(Tag.SendingTime);
    if (sendingTimeMs < 0) {
      const missing = !message.has(Tag.SendingTime);
      this.#sendRejectRaw(message.msgSeqNum, missing ? SessionRejectReason.REQUIRED_TAG_MISSING : SessionRejectReason.INCORRECT_DATA_FORMAT,
        Tag.SendingTime, msgType, missing ? 'Required tag missing' : 'Incorrect data format for value');
      return this.#refuse(missing ? 'SendingTime(52) missing' : 'SendingTime(52) invalid', true);
    }
    if (this.#toleranceMs > 0 && Math.abs(sendingTimeMs - this.#clock.nowMs()) > this.#toleranceMs) {
      this.#sendRejectRaw(message.msgSeqNum, SessionRejectReason.SENDING_TIME_ACCURACY, Tag.SendingTime, msgType, 'SendingTime accuracy problem');
      return this.#refuse('SendingTime accuracy problem', true);
    }
    const name = this.#ourCompId;
    const kind = options.sessionNames.includes(name) ? sessionKindOf(name) : null;
    if (kind === null) return this.#refuse(`Unknown TargetCompID ${name}`, true);
    const keyId = this.#peerCompId;
    const publicKey = options.publicKeyOf(keyId);
    if (publicKey === null) return this.#refuse('Unknown API key', true);
    if (!options.registry.claim(keyId, this)) return this.#refuse('Session for this API key already exists', true);
    this.#claimed = true;
    this.#keyId = keyId;
    this.#kind = kind;
    const reset = message.getFlag(Tag.ResetSeqNumFlag);
    if (kind.resetSeqNumRequired && !reset) return this.#refuse(`ResetSeqNumFlag(141)=Y required on ${kind.name}`, true);
    const signature = message.getString(Tag.RawData);
    const signed = signature !== null && verifyLogon(publicKey, message.getString(Tag.SendingTime) ?? '',
      message.getString(Tag.MsgSeqNum) ?? '', keyId, name, signature);
    if (!signed) return this.#refuse('Logon signature error', true);
    const rule = options.heartbeat ?? PREDICTIONS_HEARTBEAT;
    const given = message.getInt(Tag.HeartBtInt);
    const heartbeatIntervalS = given === INT_INVALID && !message.has(Tag.HeartBtInt) && rule.defaultS !== null ? rule.defaultS : given;
    if (heartbeatIntervalS === INT_INVALID || heartbeatIntervalS < rule.minS) {
      return this.#refuse(`HeartBtInt(108) must be ${rule.minS === HEARTBEAT_INTERVAL_MIN_S ? 'greater than 3' : `at least ${rule.minS}`}`, true);
    }
    if (message.has(Tag.SenderSubID)) return this.#refuse('SenderSubID(50) is not allowed on Logon', true);
    const refusal = options.authorize?.(message, keyId, kind) ?? null;
    if (refusal !== null) return this.#refuse(refusal, true);
    const seq = message.msgSeqNum;
    if (seq === INT_INVALID || seq < 1) return this.#refuse('MsgSeqNum(34) missing or invalid', true);

    const store = options.storeFor(keyId, name);
    this.#store = store;
    if (reset) store.reset();
    const expected = store.nextIncoming();
    if (seq < expected) return this.#refuse(`MsgSeqNum too low, expecting ${expected} but received ${seq}`, true);
    this.#heartbeatIntervalS = heartbeatIntervalS;
    this.#state = 'active';
    this.#stateSinceMs = this.#clock.nowMs();
    const encoder = this.#begin(MsgType.Logon).int(Tag.EncryptMethod, 0).int(Tag.HeartBtInt, heartbeatIntervalS);
    if (reset) encoder.flag(Tag.ResetSeqNumFlag, true);
    encoder.string(Tag.DefaultApplVerID, DEFAULT_APPL_VER_ID);
    this.#sendBuilt();
    this.#emit('logon', 'FIX_LOGON', '', seq);
    if (seq === expected || this.#onGap(expected, seq)) store.setNextIncoming(seq + 1);
  }

  /** Logout with `text` and close, for a logon that failed (fix.md §2 "Any logon failure"). */
  #refuse(text: string, sendLogout: boolean): void {
    this.#emit('logon-refused', 'FIX_LOGON_REFUSED', text, 0);
    if (sendLogout) {
      // Not through the store: a refused logon must not touch the sequence numbers of the key's live session.
      const encoder = this.#encoder.begin(MsgType.Logout, this.#ourCompId, this.#peerCompId, this.#refusalSeq++, this.#clock.nowMs());
      if (text.length > 0) encoder.string(Tag.Text, text);
      this.#write(encoder.finish());
    }
    this.#close();
  }

  // ---- outbound ----

  #begin(msgType: string): FixEncoder {
    const store = this.#store as SequenceStore;
    const nowMs = this.#clock.nowMs();
    this.#buildingMs = nowMs;
    return this.#encoder.begin(msgType, this.#ourCompId, this.#peerCompId, store.nextOutgoing(), nowMs);
  }

  /** Finishes the message being built, numbers it, writes it and keeps it for replay where that exists. */
  #sendBuilt(): number {
    const store = this.#store as SequenceStore;
    const seq = store.nextOutgoing();
    const bytes = this.#encoder.finish();
    store.setNextOutgoing(seq + 1); // before the write: a crash must never reuse a number
    // Stored before the write too: a synchronous transport may re-enter and reuse the encoder's buffer.
    if (this.#kind !== null && this.#kind.retransmits) store.saveOutgoing(seq, bytes);
    this.#lastSentMs = this.#buildingMs;
    this.#transport?.write(bytes);
    return seq;
  }

  #write(bytes: Buffer): void {
    this.#lastSentMs = this.#clock.nowMs();
    this.#transport?.write(bytes);
  }

  #sendLogout(text: string): void {
    if (this.#store === null) return;
    const encoder = this.#begin(MsgType.Logout);
    if (text.length > 0) encoder.string(Tag.Text, text);
    this.#sendBuilt();
  }

  #sendReject(refSeqNum: number, reason: number, refTagId: number, refMsgType: string, text: string): void {
    if (this.#store === null) return;
    const encoder = this.#begin(MsgType.Reject).int(Tag.RefSeqNum, refSeqNum < 0 ? 0 : refSeqNum).string(Tag.Text, text);
    if (refTagId > 0) encoder.int(Tag.RefTagID, refTagId);
    if (refMsgType.length > 0 && isPrintable(refMsgType)) encoder.string(Tag.RefMsgType, refMsgType);
    encoder.int(Tag.SessionRejectReason, reason);
    this.#sendBuilt();
    this.#emit('reject-sent', 'FIX_REJECT', text, refSeqNum);
  }

  /** Reject before a store exists (a Logon with a bad SendingTime): numbered from 1, not stored. */
  #sendRejectRaw(refSeqNum: number, reason: number, refTagId: number, refMsgType: string, text: string): void {
    this.#write(this.#encoder.begin(MsgType.Reject, this.#ourCompId, this.#peerCompId, this.#refusalSeq++, this.#clock.nowMs())
      .int(Tag.RefSeqNum, refSeqNum === INT_INVALID ? 0 : refSeqNum).string(Tag.Text, text).int(Tag.RefTagID, refTagId)
      .string(Tag.RefMsgType, refMsgType).int(Tag.SessionRejectReason, reason).finish());
    this.#emit('reject-sent', 'FIX_REJECT', text, refSeqNum);
  }

  /** A Reject for a message that still consumes its sequence number when it was the expected one. */
  #rejectAndConsume(seq: number, reason: number, refTagId: number, msgType: string, text: string): void {
    const store = this.#store as SequenceStore;
    if (seq === store.nextIncoming()) store.setNextIncoming(seq + 1);
    this.#sendReject(seq, reason, refTagId, msgType, text);
  }

  #logoutAndClose(text: string): void {
    this.#emit('logout', 'FIX_LOGOUT_SENT', text, 0);
    if (this.#state === 'active' || this.#state === 'logon-sent') this.#sendLogout(text);
    this.#close();
  }

  #close(): void {
    if (this.#state === 'closed') return;
    const transport = this.#transport;
    this.#finish();
    transport?.end();
  }

  #finish(): void {
    this.#state = 'closed';
    this.#building = false;
    this.#replayNext = 0;
    this.#framer.reset();
    this.#transport = null;
    if (this.#claimed) {
      (this.#options as FixAcceptorOptions).registry.release(this.#keyId, this);
      this.#claimed = false;
    }
    this.#emit('closed', 'FIX_CLOSED', '', 0);
  }

  #emit(type: FixSessionEventType, code: string, text: string, seq: number): void {
    this.#application.onEvent?.({ type, code, text, seq }, this);
  }
}

function isPrintable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return text.length > 0;
}

/** CompIDs: a key id is a 36-character UUID, a session name at most 9 characters; 64 leaves room. */
const COMP_ID_CHARS_MAX = 64;

function printableOr(message: FixMessage, tag: number, fallback: string): string {
  const value = message.getString(tag);
  return value !== null && value.length <= COMP_ID_CHARS_MAX && isPrintable(value) ? value : fallback;
}

function compIdTooLong(message: FixMessage, tag: number): boolean {
  const i = message.indexOf(tag);
  return i !== -1 && message.valueEndAt(i) - message.valueStartAt(i) > COMP_ID_CHARS_MAX;
}
