// Goal: the session state machine behaves as fix.md §1-§3 and §11 say, on both ends at once.
// Method: an initiator and an acceptor wired back to back in memory through queues the test pumps
// (bounded), each with its own ManualClock; a real RSA-2048 key pair signs the Logon. Every message
// on the wire is parsed and recorded so tests assert what was sent (tags, sequence numbers, flags),
// and a filter can drop messages in transit to make gaps. Raw hand-encoded messages cover what a
// well-behaved session never sends (a low MsgSeqNum, no MsgSeqNum, a skewed SendingTime).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import {
  ActiveSessionRegistry, FileSequenceStore, FixEncoder, FixError, FixMessage, FixSession, MemorySequenceStore, MsgType,
  formatUtcTimestamp, parseMessage, Tag, type FixSessionEvent, type SequenceStore,
} from '../../src/fix/index.ts';

const KEY_ID = '4b1d2c3e-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const T0 = Date.parse('2026-11-22T14:30:00.000Z');
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

interface WireMessage {
  msgType: string;
  seq: number;
  fields: Map<number, string>;
}

function decode(bytes: Buffer): WireMessage {
  const message = parseMessage(Buffer.from(bytes));
  if (message instanceof FixError) throw message;
  const fields = new Map<number, string>();
  for (let i = 0; i < message.fieldCount; i++) fields.set(message.tagAt(i), message.stringAt(i) as string);
  return { msgType: message.msgType(), seq: message.msgSeqNum, fields };
}

interface Side {
  session: FixSession;
  clock: ManualClock;
  /** Application messages delivered: "<type>:<seq>[:dup]". */
  delivered: string[];
  events: FixSessionEvent[];
  /** Everything this side wrote. */
  sent: WireMessage[];
  ended: boolean;
}

interface PairOptions {
  sessionName?: string;
  resetSeqNum?: boolean;
  signingKey?: KeyObject;
  registry?: ActiveSessionRegistry;
  initiatorStore?: SequenceStore;
  acceptorStores?: Map<string, SequenceStore>;
  logonFields?: [number, string][];
  authorize?: () => string | null;
  keyId?: string;
}

function side(): Omit<Side, 'session'> {
  return { clock: new ManualClock(T0), delivered: [], events: [], sent: [], ended: false };
}

function recordApp(target: Omit<Side, 'session'>) {
  return {
    onMessage(message: FixMessage) {
      target.delivered.push(`${message.msgType()}:${message.msgSeqNum}${message.getFlag(Tag.PossDupFlag) ? ':dup' : ''}`);
    },
    onEvent(event: FixSessionEvent) {
      target.events.push(event);
    },
  };
}

/** A back-to-back pair; pump() moves queued bytes both ways until quiet (bounded). */
function makePair(options: PairOptions = {}) {
  const sessionName = options.sessionName ?? 'KalshiNR';
  const registry = options.registry ?? new ActiveSessionRegistry();
  const acceptorStores = options.acceptorStores ?? new Map<string, SequenceStore>();
  const init = side();
  const acc = side();
  const toAcceptor: Buffer[] = [];
  const toInitiator: Buffer[] = [];
  let dropToInitiator: (message: WireMessage) => boolean = () => false;
  let dropToAcceptor: (message: WireMessage) => boolean = () => false;
  let cutToInitiator = false;

  const initiator = new FixSession({
    role: 'initiator', sessionName, keyId: options.keyId ?? KEY_ID, privateKey: options.signingKey ?? privateKey,
    heartbeatIntervalS: 30, store: options.initiatorStore ?? new MemorySequenceStore(), clock: init.clock,
    ...(options.resetSeqNum === undefined ? {} : { resetSeqNum: options.resetSeqNum }),
    ...(options.logonFields ? { logonFields: options.logonFields } : {}),
  }, recordApp(init));
  const acceptor = new FixSession({
    role: 'acceptor', sessionNames: [sessionName], clock: acc.clock, registry,
    publicKeyOf: (keyId) => (keyId === KEY_ID || keyId === 'second-key' ? publicKey : null),
    storeFor: (keyId, name) => {
      const key = `${keyId}/${name}`;
      if (!acceptorStores.has(key)) acceptorStores.set(key, new MemorySequenceStore());
      return acceptorStores.get(key) as SequenceStore;
    },
    ...(options.authorize ? { authorize: options.authorize } : {}),
  }, recordApp(acc));

  const pair = {
    initiator: { ...init, session: initiator } as Side,
    acceptor: { ...acc, session: acceptor } as Side,
    registry,
    acceptorStores,
    dropNextToInitiator(predicate: (message: WireMessage) => boolean) {
      dropToInitiator = predicate;
    },
    dropNextToAcceptor(predicate: (message: WireMessage) => boolean) {
      dropToAcceptor = predicate;
    },
    /** Drops everything towards the initiator while set. */
    cutToInitiator(cut: boolean) {
      cutToInitiator = cut;
    },
    /** Delivers raw bytes to the acceptor as if the initiator had sent them. */
    injectToAcceptor(bytes: Buffer) {
      toAcceptor.push(Buffer.from(bytes));
    },
    pump() {
      for (let round = 0; round < 1000 && (toAcceptor.length > 0 || toInitiator.length > 0); round++) {
        const a = toAcceptor.shift();
        if (a !== undefined) acceptor.receive(a);
        const b = toInitiator.shift();
        if (b !== undefined) initiator.receive(b);
      }
      if (pair.initiator.ended || pair.acceptor.ended) {
        initiator.disconnected();
        acceptor.disconnected();
      }
    },
    connect() {
      pair.initiator.ended = false;
      pair.acceptor.ended = false;
      acceptor.connect({
        write(bytes) {
          const message = decode(Buffer.from(bytes));
          pair.acceptor.sent.push(message);
          if (cutToInitiator) return;
          if (dropToInitiator(message)) dropToInitiator = () => false;
          else toInitiator.push(Buffer.from(bytes));
        },
        end() {
          pair.acceptor.ended = true;
        },
      });
      initiator.connect({
        write(bytes) {
          const message = decode(Buffer.from(bytes));
          pair.initiator.sent.push(message);
          if (dropToAcceptor(message)) dropToAcceptor = () => false;
          else toAcceptor.push(Buffer.from(bytes));
        },
        end() {
          pair.initiator.ended = true;
        },
      });
      pair.pump();
    },
    advance(ms: number) {
      init.clock.advance(ms);
      acc.clock.advance(ms);
      initiator.tick();
      acceptor.tick();
      pair.pump();
    },
  };
  // The spread copies above share arrays with init/acc, so the recorders fill the pair's sides.
  return pair;
}

function sendOrder(session: FixSession, clOrdId: string): number {
  session.begin(MsgType.NewOrderSingle).string(Tag.ClOrdID, clOrdId).string(Tag.Symbol, 'KXTEST-1').string(Tag.Side, '1')
    .count(Tag.OrderQty, 1000, 0).string(Tag.OrdType, '2').price(Tag.Price, 4200);
  return session.send();
}

function sendReport(session: FixSession, execId: string): number {
  session.begin(MsgType.ExecutionReport).string(Tag.ExecID, execId).string(Tag.ExecType, '0').string(Tag.OrdStatus, '0');
  return session.send();
}

/** A complete message around `body` ("35=..|...|", `|` for SOH) with correct BodyLength and CheckSum. */
function frame(body: string): Buffer {
  const head = Buffer.from(`8=FIXT.1.1\x019=${body.length}\x01${body.replace(/\|/g, '\x01')}`, 'latin1');
  let sum = 0;
  for (const byte of head) sum += byte;
  return Buffer.concat([head, Buffer.from(`10=${String(sum % 256).padStart(3, '0')}\x01`, 'latin1')]);
}
const NOW_TEXT = formatUtcTimestamp(T0);

const texts = (events: FixSessionEvent[], type: string): string[] => events.filter((e) => e.type === type).map((e) => e.text);

describe('logon', () => {
  it('a signed logon on KalshiNR makes both sides active, with the fields of fix.md §2', () => {
    const pair = makePair({ logonFields: [[Tag.UseDollars, 'Y']] });
    pair.connect();
    expect(pair.initiator.session.state).toBe('active');
    expect(pair.acceptor.session.state).toBe('active');
    expect(pair.acceptor.session.keyId).toBe(KEY_ID);
    expect(pair.acceptor.session.kind?.name).toBe('KalshiNR');

    const logon = pair.initiator.sent[0];
    expect(logon.msgType).toBe('A');
    expect(logon.seq).toBe(1);
    expect(logon.fields.get(Tag.SenderCompID)).toBe(KEY_ID);
    expect(logon.fields.get(Tag.TargetCompID)).toBe('KalshiNR');
    expect(logon.fields.get(Tag.EncryptMethod)).toBe('0');
    expect(logon.fields.get(Tag.HeartBtInt)).toBe('30');
    expect(logon.fields.get(Tag.RawDataLength)).toBe('344');
    expect(logon.fields.get(Tag.RawData)).toHaveLength(344);
    expect(logon.fields.get(Tag.ResetSeqNumFlag)).toBe('Y');
    expect(logon.fields.get(Tag.DefaultApplVerID)).toBe('9');
    expect(logon.fields.get(Tag.UseDollars)).toBe('Y');
    expect(logon.fields.has(Tag.SenderSubID)).toBe(false);

    const reply = pair.acceptor.sent[0];
    expect(reply.msgType).toBe('A');
    expect(reply.fields.get(Tag.SenderCompID)).toBe('KalshiNR');
    expect(reply.fields.get(Tag.TargetCompID)).toBe(KEY_ID);
    expect(reply.fields.get(Tag.HeartBtInt)).toBe('30');
    expect(reply.fields.get(Tag.ResetSeqNumFlag)).toBe('Y');
    expect(pair.initiator.session.nextOutgoing).toBe(2);
    expect(pair.initiator.session.nextIncoming).toBe(2);
  });

  it('carries application messages both ways, in sequence', () => {
    const pair = makePair();
    pair.connect();
    expect(sendOrder(pair.initiator.session, 'c1')).toBe(2);
    expect(sendOrder(pair.initiator.session, 'c2')).toBe(3);
    sendReport(pair.acceptor.session, '1;1');
    pair.pump();
    expect(pair.acceptor.delivered).toEqual(['D:2', 'D:3']);
    expect(pair.initiator.delivered).toEqual(['8:2']);
  });

  it('refuses a logon without 141=Y on KalshiNR', () => {
    const pair = makePair({ resetSeqNum: false });
    pair.connect();
    expect(pair.initiator.session.state).toBe('closed');
    expect(pair.acceptor.session.state).toBe('closed');
    expect(texts(pair.initiator.events, 'logon-refused')[0]).toContain('141');
    expect(pair.acceptor.sent.map((m) => m.msgType)).toEqual(['5']);
    expect(pair.registry.size).toBe(0);
  });

  it('accepts a logon without 141 on KalshiRT (optional there)', () => {
    const pair = makePair({ sessionName: 'KalshiRT', resetSeqNum: false });
    pair.connect();
    expect(pair.acceptor.session.state).toBe('active');
    expect(pair.initiator.sent[0].fields.has(Tag.ResetSeqNumFlag)).toBe(false);
  });

  it('refuses a second logon with the same key: Logout "already exists"; the first stays up', () => {
    const registry = new ActiveSessionRegistry();
    const first = makePair({ registry });
    first.connect();
    const second = makePair({ registry });
    second.connect();
    expect(first.acceptor.session.state).toBe('active');
    expect(second.initiator.session.state).toBe('closed');
    const logout = second.acceptor.sent.find((m) => m.msgType === '5');
    expect(logout?.fields.get(Tag.Text)).toContain('already exists');
    expect(texts(second.initiator.events, 'logon-refused')[0]).toContain('already exists');
    expect(registry.has(KEY_ID)).toBe(true);
    // Once the first logs out, the key is free again.
    first.initiator.session.logout();
    first.pump();
    expect(registry.size).toBe(0);
    const third = makePair({ registry });
    third.connect();
    expect(third.acceptor.session.state).toBe('active');
  });

  it('refuses a bad signature, an unknown key, an unknown TargetCompID and tag 50', () => {
    const badKey = makePair({ signingKey: other.privateKey });
    badKey.connect();
    expect(texts(badKey.initiator.events, 'logon-refused')[0]).toContain('signature');

    const unknownKey = makePair({ keyId: 'nobody' });
    unknownKey.connect();
    expect(texts(unknownKey.initiator.events, 'logon-refused')[0]).toContain('Unknown API key');

    const withSubId = makePair({ logonFields: [[Tag.SenderSubID, 'op1']] });
    withSubId.connect();
    expect(texts(withSubId.initiator.events, 'logon-refused')[0]).toContain('SenderSubID');

    const restricted = makePair({ authorize: () => 'listener sessions need 21011=Y' });
    restricted.connect();
    expect(texts(restricted.initiator.events, 'logon-refused')[0]).toBe('listener sessions need 21011=Y');
    for (const pair of [badKey, unknownKey, withSubId, restricted]) {
      expect(pair.acceptor.session.state).toBe('closed');
      expect(pair.registry.size).toBe(0);
    }
  });

  it('answers a Logon whose SendingTime is more than 30 s off with Reject 373=10, then Logout', () => {
    const pair = makePair();
    pair.initiator.clock.advance(31_000);
    pair.connect();
    const [reject, logout] = pair.acceptor.sent;
    expect(reject.msgType).toBe('3');
    expect(reject.fields.get(Tag.SessionRejectReason)).toBe('10');
    expect(reject.fields.get(Tag.RefTagID)).toBe('52');
    expect(reject.fields.get(Tag.RefSeqNum)).toBe('1');
    expect(logout.msgType).toBe('5');
    expect(pair.initiator.session.state).toBe('closed');
  });

  it('closes when the logon is not answered in time', () => {
    const pair = makePair();
    pair.dropNextToAcceptor(() => true);
    pair.connect();
    expect(pair.initiator.session.state).toBe('logon-sent');
    pair.advance(10_000);
    expect(pair.initiator.session.state).toBe('closed');
    expect(pair.initiator.events.some((e) => e.code === 'FIX_HANDSHAKE_TIMEOUT')).toBe(true);
  });
});

describe('heartbeats and test requests', () => {
  it('sends a Heartbeat after HeartBtInt of silence on its side', () => {
    const pair = makePair();
    pair.connect();
    pair.advance(29_000);
    expect(pair.initiator.sent.filter((m) => m.msgType === '0')).toHaveLength(0);
    pair.advance(1_000);
    expect(pair.initiator.sent.filter((m) => m.msgType === '0')).toHaveLength(1);
    expect(pair.acceptor.sent.filter((m) => m.msgType === '0')).toHaveLength(1);
    expect(pair.initiator.session.state).toBe('active');
  });

  it('answers a TestRequest with a Heartbeat echoing TestReqID', () => {
    const pair = makePair();
    pair.connect();
    // The acceptor goes quiet towards the initiator (its heartbeats are dropped), so the initiator probes.
    pair.dropNextToInitiator((m) => m.msgType === '0');
    pair.advance(30_000);
    pair.advance(6_000);
    const probe = pair.initiator.sent.find((m) => m.msgType === '1');
    expect(probe?.fields.get(Tag.TestReqID)).toBe('TEST1');
    const answer = pair.acceptor.sent.find((m) => m.msgType === '0' && m.fields.has(Tag.TestReqID));
    expect(answer?.fields.get(Tag.TestReqID)).toBe('TEST1');
    pair.advance(30_000);
    expect(pair.initiator.session.state).toBe('active');
  });

  it('closes when a TestRequest gets no answer within HeartBtInt', () => {
    const pair = makePair();
    pair.connect();
    pair.cutToInitiator(true);
    pair.advance(36_000); // 1.2 x HeartBtInt of silence: TestRequest
    expect(pair.initiator.sent.filter((m) => m.msgType === '1')).toHaveLength(1);
    expect(pair.initiator.session.state).toBe('active');
    pair.advance(29_000);
    expect(pair.initiator.session.state).toBe('active');
    pair.advance(1_000);
    expect(pair.initiator.session.state).toBe('closed');
    expect(pair.initiator.events.some((e) => e.code === 'FIX_HEARTBEAT_TIMEOUT')).toBe(true);
  });
});

describe('sequence numbers and recovery', () => {
  it('rehearseSend finishes the message and drops it: nothing written or stored, the next send takes the same MsgSeqNum and length', () => {
    const pair = makePair({ sessionName: 'KalshiRT' });
    pair.connect();
    expect(() => pair.initiator.session.rehearseSend()).toThrow(FixError); // no begin()
    const next = pair.initiator.session.nextOutgoing;
    const sentBefore = pair.initiator.sent.length;
    const lengths: number[] = [];
    for (let i = 0; i < 20; i++) {
      pair.initiator.session.begin(MsgType.NewOrderSingle).string(Tag.ClOrdID, 'o1').string(Tag.Symbol, 'KXTEST-1').string(Tag.Side, '1')
        .count(Tag.OrderQty, 1000, 0).string(Tag.OrdType, '2').price(Tag.Price, 4200);
      lengths.push(pair.initiator.session.rehearseSend());
    }
    expect(() => pair.initiator.session.send()).toThrow(FixError); // the rehearsed build is dropped
    pair.pump();
    expect(pair.initiator.sent.length).toBe(sentBefore);
    expect(pair.initiator.session.nextOutgoing).toBe(next);
    expect(pair.acceptor.delivered).toEqual([]);
    // The real message: the MsgSeqNum the rehearsals showed, the same length, and no gap at the acceptor (KalshiRT stores and checks every number).
    expect(sendOrder(pair.initiator.session, 'o1')).toBe(next);
    pair.pump();
    const sent = pair.initiator.sent.at(-1)!;
    expect(sent.seq).toBe(next);
    expect(new Set(lengths)).toEqual(new Set([lengths[0]]));
    expect(pair.acceptor.delivered).toEqual([`D:${next}`]);
    expect(pair.acceptor.sent.some((m) => m.msgType === '2')).toBe(false); // no ResendRequest
  });

  it('KalshiRT: a gap triggers ResendRequest and the replay arrives with 43=Y and 122', () => {
    const pair = makePair({ sessionName: 'KalshiRT' });
    pair.connect();
    sendReport(pair.acceptor.session, 'e2'); // seq 2
    pair.pump();
    pair.dropNextToInitiator((m) => m.seq === 3);
    sendReport(pair.acceptor.session, 'e3'); // seq 3, lost
    sendReport(pair.acceptor.session, 'e4'); // seq 4, reveals the gap
    pair.pump();
    const request = pair.initiator.sent.find((m) => m.msgType === '2');
    expect(request?.fields.get(Tag.BeginSeqNo)).toBe('3');
    expect(request?.fields.get(Tag.EndSeqNo)).toBe('0');
    expect(pair.initiator.delivered).toEqual(['8:2', '8:3:dup', '8:4:dup']);
    const replay = pair.acceptor.sent.filter((m) => m.fields.get(Tag.PossDupFlag) === 'Y');
    expect(replay.map((m) => [m.msgType, m.seq])).toEqual([['8', 3], ['8', 4]]);
    const original = pair.acceptor.sent.find((m) => m.seq === 3 && !m.fields.has(Tag.PossDupFlag));
    expect(replay[0].fields.get(Tag.OrigSendingTime)).toBe(original?.fields.get(Tag.SendingTime));
    expect(replay[0].fields.get(Tag.ExecID)).toBe('e3');
    expect(pair.initiator.session.nextIncoming).toBe(5);
    expect(pair.initiator.events.some((e) => e.type === 'resend-requested')).toBe(true);
  });

  it('KalshiRT: session messages in the gap are gap-filled (35=4, 123=Y), not resent', () => {
    const pair = makePair({ sessionName: 'KalshiRT' });
    pair.connect();
    pair.dropNextToInitiator((m) => m.msgType === '0');
    pair.advance(30_000); // acceptor heartbeat seq 2, lost (initiator's own heartbeat goes through)
    pair.dropNextToInitiator((m) => m.seq === 3);
    sendReport(pair.acceptor.session, 'e3'); // seq 3, lost
    sendReport(pair.acceptor.session, 'e4'); // seq 4
    pair.pump();
    const gapFill = pair.acceptor.sent.find((m) => m.msgType === '4');
    expect(gapFill?.seq).toBe(2);
    expect(gapFill?.fields.get(Tag.GapFillFlag)).toBe('Y');
    expect(gapFill?.fields.get(Tag.NewSeqNo)).toBe('3');
    expect(gapFill?.fields.get(Tag.PossDupFlag)).toBe('Y');
    expect(pair.initiator.delivered).toEqual(['8:3:dup', '8:4:dup']);
    expect(pair.initiator.session.nextIncoming).toBe(5);
  });

  it('KalshiNR: a gap cannot be recovered; the message is accepted and a gap event raised', () => {
    const pair = makePair();
    pair.connect();
    pair.dropNextToInitiator((m) => m.seq === 2);
    sendReport(pair.acceptor.session, 'e2');
    sendReport(pair.acceptor.session, 'e3');
    pair.pump();
    expect(pair.initiator.delivered).toEqual(['8:3']);
    expect(pair.initiator.sent.some((m) => m.msgType === '2')).toBe(false);
    expect(pair.initiator.events.find((e) => e.type === 'gap')?.seq).toBe(2);
  });

  it('KalshiNR: a ResendRequest is answered with Reject 373=11', () => {
    const pair = makePair();
    pair.connect();
    const encoder = new FixEncoder();
    pair.injectToAcceptor(encoder.begin(MsgType.ResendRequest, KEY_ID, 'KalshiNR', 2, T0)
      .int(Tag.BeginSeqNo, 1).int(Tag.EndSeqNo, 0).finish());
    pair.pump();
    const reject = pair.acceptor.sent.at(-1);
    expect(reject?.msgType).toBe('3');
    expect(reject?.fields.get(Tag.SessionRejectReason)).toBe('11');
    expect(reject?.fields.get(Tag.RefSeqNum)).toBe('2');
    expect(pair.acceptor.session.state).toBe('active');
  });

  it('a MsgSeqNum lower than expected ends the session with a Logout naming both numbers', () => {
    const pair = makePair();
    pair.connect();
    sendOrder(pair.initiator.session, 'c1'); // seq 2
    pair.pump();
    pair.injectToAcceptor(new FixEncoder().begin(MsgType.NewOrderSingle, KEY_ID, 'KalshiNR', 2, T0).string(Tag.ClOrdID, 'again').finish());
    pair.pump();
    const logout = pair.acceptor.sent.at(-1);
    expect(logout?.msgType).toBe('5');
    expect(logout?.fields.get(Tag.Text)).toBe('MsgSeqNum too low, expecting 3 but received 2');
    expect(pair.acceptor.session.state).toBe('closed');
    expect(pair.acceptor.delivered).toEqual(['D:2']);
  });

  it('a duplicate with PossDupFlag and a lower MsgSeqNum is ignored', () => {
    const pair = makePair();
    pair.connect();
    sendOrder(pair.initiator.session, 'c1');
    pair.pump();
    pair.injectToAcceptor(new FixEncoder().begin(MsgType.NewOrderSingle, KEY_ID, 'KalshiNR', 2, T0)
      .flag(Tag.PossDupFlag, true).timestamp(Tag.OrigSendingTime, T0).string(Tag.ClOrdID, 'c1').finish());
    pair.pump();
    expect(pair.acceptor.session.state).toBe('active');
    expect(pair.acceptor.delivered).toEqual(['D:2']);
  });

  it('a message without MsgSeqNum ends the session', () => {
    const pair = makePair();
    pair.connect();
    pair.injectToAcceptor(frame(`35=D|49=${KEY_ID}|56=KalshiNR|52=${NOW_TEXT}|11=c1|`));
    pair.pump();
    expect(pair.acceptor.sent.at(-1)?.fields.get(Tag.Text)).toContain('MsgSeqNum(34) missing');
    expect(pair.acceptor.session.state).toBe('closed');
  });

  it('SendingTime more than 30 s off gets Reject 373=10 and the message is not delivered', () => {
    const pair = makePair();
    pair.connect();
    pair.injectToAcceptor(frame(`35=D|49=${KEY_ID}|56=KalshiNR|34=2|52=${formatUtcTimestamp(T0 - 31_000)}|11=late|`));
    pair.pump();
    const reject = pair.acceptor.sent.find((m) => m.msgType === '3');
    expect(reject?.fields.get(Tag.SessionRejectReason)).toBe('10');
    expect(reject?.fields.get(Tag.RefSeqNum)).toBe('2');
    expect(reject?.fields.get(Tag.RefMsgType)).toBe('D');
    expect(pair.acceptor.delivered).toEqual([]);
    expect(pair.initiator.events.some((e) => e.type === 'reject-received')).toBe(true);
    // The number was consumed: the next in-window message is accepted.
    pair.injectToAcceptor(frame(`35=D|49=${KEY_ID}|56=KalshiNR|34=3|52=${formatUtcTimestamp(T0 - 29_000)}|11=ok|`));
    pair.pump();
    expect(pair.acceptor.delivered).toEqual(['D:3']);
  });

  it('a field-level problem gets Reject with 45/371/372/373/58 and consumes the number', () => {
    const pair = makePair();
    pair.connect();
    pair.injectToAcceptor(frame(`35=D|49=${KEY_ID}|56=KalshiNR|34=2|52=${NOW_TEXT}|11=c1|58=|`));
    pair.pump();
    const reject = pair.acceptor.sent.at(-1);
    expect(reject?.msgType).toBe('3');
    expect(reject?.fields.get(Tag.RefSeqNum)).toBe('2');
    expect(reject?.fields.get(Tag.RefTagID)).toBe('58');
    expect(reject?.fields.get(Tag.RefMsgType)).toBe('D');
    expect(reject?.fields.get(Tag.SessionRejectReason)).toBe('4');
    expect(reject?.fields.get(Tag.Text)).toBeTruthy();
    expect(pair.acceptor.session.nextIncoming).toBe(3);
    expect(pair.acceptor.delivered).toEqual([]);
  });

  it('begin() before logon throws FIX_NOT_LOGGED_ON', () => {
    const pair = makePair();
    expect(() => pair.initiator.session.begin(MsgType.NewOrderSingle)).toThrow(FixError);
  });
});

describe('logout', () => {
  it('a graceful logout: the peer sees Text, answers with a Logout without Text, both close', () => {
    const pair = makePair();
    pair.connect();
    pair.initiator.session.logout('done for today');
    pair.pump();
    expect(texts(pair.acceptor.events, 'logout')).toEqual(['done for today']);
    const answer = pair.acceptor.sent.at(-1);
    expect(answer?.msgType).toBe('5');
    expect(answer?.fields.has(Tag.Text)).toBe(false);
    expect(pair.initiator.session.state).toBe('closed');
    expect(pair.acceptor.session.state).toBe('closed');
    expect(pair.registry.size).toBe(0);
  });
});

describe('file-backed sequence store', () => {
  it('recovers sequence numbers and stored messages after reopening, and a RT session resumes', () => {
    const directory = mkdtempSync(join(tmpdir(), 'fix-store-'));
    directories.push(directory);
    const path = join(directory, 'sessions', 'KalshiRT-key');
    const acceptorStores = new Map<string, SequenceStore>();
    let store = new FileSequenceStore(path);
    const pair = makePair({ sessionName: 'KalshiRT', resetSeqNum: true, initiatorStore: store, acceptorStores });
    pair.connect();
    sendOrder(pair.initiator.session, 'c1'); // 2
    sendOrder(pair.initiator.session, 'c2'); // 3
    sendReport(pair.acceptor.session, 'e2');
    pair.pump();
    expect(statSync(`${path}.seqnums`).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}.messages`).mode & 0o777).toBe(0o600);
    // Crash: the store is closed without a logout, then reopened from its files.
    pair.initiator.session.disconnected();
    pair.acceptor.session.disconnected();
    store.close();
    store = new FileSequenceStore(path);
    expect(store.nextOutgoing()).toBe(4);
    expect(store.nextIncoming()).toBe(3);
    const stored = parseMessage(store.loadOutgoing(3) as Buffer) as FixMessage;
    expect(stored.getString(Tag.ClOrdID)).toBe('c2');
    expect(store.oldestOutgoing()).toBe(1);

    // Reconnect without reset: sequence numbers continue on both sides.
    const resumed = makePair({ sessionName: 'KalshiRT', resetSeqNum: false, initiatorStore: store, acceptorStores });
    resumed.connect();
    expect(resumed.initiator.sent[0].seq).toBe(4);
    expect(resumed.acceptor.session.state).toBe('active');
    expect(sendOrder(resumed.initiator.session, 'c3')).toBe(5);
    resumed.pump();
    expect(resumed.acceptor.delivered).toEqual(['D:5']);
    store.close();
  });

  it('cuts a record torn by a crash and keeps the ones before it', async () => {
    const { appendFileSync } = await import('node:fs');
    const directory = mkdtempSync(join(tmpdir(), 'fix-store-'));
    directories.push(directory);
    const path = join(directory, 'torn');
    const store = new FileSequenceStore(path);
    store.saveOutgoing(1, Buffer.from('first'));
    store.saveOutgoing(2, Buffer.from('second'));
    store.setNextOutgoing(3);
    store.close();
    appendFileSync(`${path}.messages`, '3 100\npartial');
    const reopened = new FileSequenceStore(path);
    expect(reopened.loadOutgoing(1)?.toString()).toBe('first');
    expect(reopened.loadOutgoing(2)?.toString()).toBe('second');
    expect(reopened.loadOutgoing(3)).toBeNull();
    reopened.saveOutgoing(3, Buffer.from('third'));
    reopened.close();
    const again = new FileSequenceStore(path);
    expect(again.loadOutgoing(3)?.toString()).toBe('third');
    again.reset();
    expect(again.nextOutgoing()).toBe(1);
    expect(again.loadOutgoing(1)).toBeNull();
    again.close();
  });

  it('bounds retained messages and rejects a resend request older than the window', () => {
    const store = new MemorySequenceStore({ messagesMax: 3 });
    for (let seq = 1; seq <= 5; seq++) store.saveOutgoing(seq, Buffer.from(`m${seq}`));
    expect(store.oldestOutgoing()).toBe(3);
    expect(store.loadOutgoing(2)).toBeNull();
    expect(store.loadOutgoing(5)?.toString()).toBe('m5');
  });
});
