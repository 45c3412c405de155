// Goal: the encoder writes exactly the bytes fix.md §10 shows (BodyLength, CheckSum, field forms),
// the parser reads them back exactly, and fixed-point and timestamp codecs never go through floats.
// Method: rebuild the three worked examples of fix.md §10 field by field and compare byte for byte
// (`|` stands for SOH); verify the example Logon's RSA-PSS signature against the published key;
// seeded random round trips for integers, prices, counts, money and timestamps (against Date);
// table tests for accessors, repeating groups and encoder guards.
import { readFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/index.ts';
import {
  FIX_ERROR_CODES, FixEncoder, FixError, FixGroup, FixMessage, formatUtcTimestamp, INT_INVALID, logonSignatureText,
  MsgType, parseMessage, REJECT_NONE, SESSION_KINDS, sessionKindOf, Tag, verifyLogon,
} from '../../src/fix/index.ts';

const SPEC = readFileSync(new URL('../../../shared/spec/fix.md', import.meta.url), 'utf8');
const EXAMPLES = SPEC.split('\n').filter((line) => line.startsWith('8=FIXT.1.1|'));
const KEY_ID = '4b1d2c3e-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const PUBLIC_KEY_PEM = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/.exec(SPEC)?.[0] ?? '';

const toWire = (text: string): Buffer => Buffer.from(text.replace(/\|/g, '\x01'), 'latin1');
const toText = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1').replace(/\x01/g, '|');
const ms = (iso: string): number => Date.parse(iso);

function parsed(bytes: Buffer): FixMessage {
  const result = parseMessage(bytes);
  if (result instanceof FixError) throw result;
  return result;
}

describe('fix.md §10 worked examples', () => {
  it('finds the three examples in fix.md', () => {
    expect(EXAMPLES).toHaveLength(3);
    expect(PUBLIC_KEY_PEM).toContain('MIIBIjAN');
  });

  it('Logon: same bytes, and the signature verifies against the published throwaway key', () => {
    const example = EXAMPLES[0];
    const signature = /\|96=([^|]+)\|/.exec(example)?.[1] ?? '';
    expect(signature).toHaveLength(344);
    const bytes = new FixEncoder()
      .begin(MsgType.Logon, KEY_ID, 'KalshiNR', 1, ms('2026-11-22T14:30:00.125Z'))
      .int(Tag.EncryptMethod, 0).int(Tag.HeartBtInt, 30).data(Tag.RawDataLength, Tag.RawData, signature)
      .flag(Tag.ResetSeqNumFlag, true).string(Tag.DefaultApplVerID, '9')
      .flag(Tag.UseDollars, true).flag(Tag.CancelOrdersOnDisconnect, true)
      .finish();
    expect(toText(bytes)).toBe(example);

    const publicKey = createPublicKey(PUBLIC_KEY_PEM);
    expect(logonSignatureText('20261122-14:30:00.125', '1', KEY_ID, 'KalshiNR'))
      .toBe(`20261122-14:30:00.125\x01A\x011\x01${KEY_ID}\x01KalshiNR`);
    expect(verifyLogon(publicKey, '20261122-14:30:00.125', '1', KEY_ID, 'KalshiNR', signature)).toBe(true);
    // Any change to the signed fields breaks it.
    expect(verifyLogon(publicKey, '20261122-14:30:00.126', '1', KEY_ID, 'KalshiNR', signature)).toBe(false);
    expect(verifyLogon(publicKey, '20261122-14:30:00.125', '1', KEY_ID, 'KalshiRT', signature)).toBe(false);
    expect(verifyLogon(publicKey, '20261122-14:30:00.125', '1', KEY_ID, 'KalshiNR', 'AAAA')).toBe(false);
    expect(verifyLogon(publicKey, '20261122-14:30:00.125', '1', KEY_ID, 'KalshiNR', '')).toBe(false);
  });

  it('NewOrderSingle: same bytes (whole-contract quantity, dollar price)', () => {
    const bytes = new FixEncoder()
      .begin(MsgType.NewOrderSingle, KEY_ID, 'KalshiNR', 2, ms('2026-11-22T14:30:00.412Z'))
      .string(Tag.ClOrdID, '9f0c2d84-3b1a-4e57-9a6e-2c4d8b1f7e30').string(Tag.Symbol, 'KXHIGHNY-26NOV22-B45.5')
      .string(Tag.Side, '1').count(Tag.OrderQty, 1000, 0).string(Tag.OrdType, '2').price(Tag.Price, 4200)
      .string(Tag.TimeInForce, '1').int(Tag.ExDestination, -1).int(Tag.SelfTradePreventionType, 1)
      .finish();
    expect(toText(bytes)).toBe(EXAMPLES[1]);
  });

  it('ExecutionReport: same bytes (counts with 2 decimals, money with signs, groups)', () => {
    const bytes = new FixEncoder()
      .begin(MsgType.ExecutionReport, 'KalshiNR', KEY_ID, 3, ms('2026-11-22T14:30:00.418Z'))
      .string(Tag.OrderID, 'c3a1e0f2-7d44-4b8e-a1f9-5e6d7c8b9a01').string(Tag.ClOrdID, '9f0c2d84-3b1a-4e57-9a6e-2c4d8b1f7e30')
      .string(Tag.ExecID, '5812;90417').string(Tag.ExecType, 'F').string(Tag.OrdStatus, '1')
      .string(Tag.Symbol, 'KXHIGHNY-26NOV22-B45.5').string(Tag.Side, '1').count(Tag.OrderQty, 1000)
      .price(Tag.Price, 4200).count(Tag.LastQty, 400).price(Tag.LastPx, 4200).count(Tag.CumQty, 400)
      .count(Tag.LeavesQty, 600).price(Tag.AvgPx, 4200).timestamp(Tag.TransactTime, ms('2026-11-22T14:30:00.415Z'))
      .int(Tag.LastMkt, 0).int(Tag.ClearingBusinessDate, 20261122).string(Tag.TrdMatchID, '7e2b9c10-44d1-4f0a-9b3e-6a5c4d3e2f1a')
      .flag(Tag.AggressorIndicator, true).count(Tag.LongQty, 400).count(Tag.ShortQty, 0)
      .int(Tag.NoMiscFees, 1).dollars(Tag.MiscFeeAmt, 700).string(Tag.MiscFeeCurr, 'USD').int(Tag.MiscFeeType, 4)
      .int(Tag.MiscFeeBasis, 0).int(Tag.NoCollateralAmountChanges, 1).dollars(Tag.CollateralAmountChange, -17_500)
      .string(Tag.CollateralType, 'BALANCE')
      .finish();
    expect(toText(bytes)).toBe(EXAMPLES[2]);
  });

  it('parses each example and reads its values as integers', () => {
    const logon = parsed(toWire(EXAMPLES[0]));
    expect(logon.msgType()).toBe('A');
    expect(logon.msgSeqNum).toBe(1);
    expect(logon.getInt(Tag.HeartBtInt)).toBe(30);
    expect(logon.getInt(Tag.RawDataLength)).toBe(344);
    expect(logon.getString(Tag.RawData)).toHaveLength(344);
    expect(logon.getFlag(Tag.ResetSeqNumFlag)).toBe(true);
    expect(logon.getTimestamp(Tag.SendingTime)).toBe(ms('2026-11-22T14:30:00.125Z'));
    expect(logon.rejectReason).toBe(REJECT_NONE);

    const order = parsed(toWire(EXAMPLES[1]));
    expect(order.msgTypeIs('D')).toBe(true);
    expect(order.getPrice(Tag.Price)).toBe(4200);
    expect(order.getCount(Tag.OrderQty)).toBe(1000);
    expect(order.getInt(Tag.ExDestination)).toBe(-1);
    expect(order.getString(Tag.Symbol)).toBe('KXHIGHNY-26NOV22-B45.5');

    const report = parsed(toWire(EXAMPLES[2]));
    expect(report.getCount(Tag.LeavesQty)).toBe(600);
    expect(report.getDollars(Tag.CollateralAmountChange)).toBe(-17_500);
    expect(report.getDollars(Tag.MiscFeeAmt)).toBe(700);
    expect(report.getInt(Tag.ClearingBusinessDate)).toBe(20261122);
    expect(report.getFlag(Tag.AggressorIndicator)).toBe(true);
    expect(report.getInt(Tag.CheckSum)).toBe(219);
    const fees = new FixGroup(4);
    expect(report.readGroup(Tag.NoMiscFees, Tag.MiscFeeAmt, fees, new Set([137, 138, 139, 891]))).toBe(1);
    const currency = report.indexOf(Tag.MiscFeeCurr, fees.start(0), fees.end(0));
    expect(report.stringAt(currency)).toBe('USD');
    expect(report.indexOf(Tag.CollateralType, fees.start(0), fees.end(0))).toBe(-1); // after the group
  });
});

describe('encoder framing', () => {
  it('computes BodyLength from 35 to the SOH before 10, and CheckSum as the byte sum mod 256', () => {
    const bytes = new FixEncoder().begin('0', 'A', 'B', 7, 0).finish();
    const text = toText(bytes);
    expect(text).toBe('8=FIXT.1.1|9=45|35=0|49=A|56=B|34=7|52=19700101-00:00:00.000|10=' + text.slice(-4));
    const body = '35=0|49=A|56=B|34=7|52=19700101-00:00:00.000|';
    expect(body.length).toBe(45);
    let sum = 0;
    for (let i = 0; i < bytes.length - 7; i++) sum += bytes[i];
    expect(text.slice(-4, -1)).toBe(String(sum % 256).padStart(3, '0'));
  });

  it('reuses its buffer, grows to the bound and refuses beyond it', () => {
    const encoder = new FixEncoder({ capacityBytes: 64, messageBytesMax: 2048 });
    const long = 'x'.repeat(1500);
    const message = parsed(Buffer.from(encoder.begin('D', 'A', 'B', 1, 0).string(Tag.Text, long).finish()));
    expect(message.getString(Tag.Text)).toBe(long);
    expect(() => encoder.begin('D', 'A', 'B', 1, 0).string(Tag.Text, 'y'.repeat(2100))).toThrow(FixError);
    // Still usable after the refusal.
    expect(parsed(Buffer.from(encoder.begin('0', 'A', 'B', 2, 0).finish())).msgSeqNum).toBe(2);
  });

  it.each([
    ['SOH in a string', (e: FixEncoder) => e.string(Tag.Text, 'a\x01b')],
    ['non-ASCII', (e: FixEncoder) => e.string(Tag.Text, 'é')],
    ['empty string', (e: FixEncoder) => e.string(Tag.Text, '')],
    ['fractional int', (e: FixEncoder) => e.int(Tag.MsgSeqNum, 1.5)],
    ['sub-cent price in cents mode', (e: FixEncoder) => e.priceCents(Tag.Price, 4250)],
    ['negative time', (e: FixEncoder) => e.timestamp(Tag.TransactTime, -1)],
    ['tag zero', (e: FixEncoder) => e.int(0, 1)],
  ])('throws FIX_VALUE_INVALID for %s', (_name, write) => {
    const encoder = new FixEncoder().begin('D', 'A', 'B', 1, 0);
    try {
      write(encoder);
      expect.unreachable('no throw');
    } catch (error) {
      expect((error as FixError).code).toBe('FIX_VALUE_INVALID');
    }
  });

  it('writes cents mode and count forms', () => {
    const message = parsed(Buffer.from(new FixEncoder().begin('D', 'A', 'B', 1, 0)
      .priceCents(Tag.Price, 4200).count(Tag.OrderQty, 1050, 0).count(Tag.CumQty, 5).dollars(Tag.MiscFeeAmt, 6, 2)
      .fixed(Tag.SettlementPrice, 3060, 2, 2).utcDate(Tag.MDEntryDate, ms('2026-08-17T16:00:00.456Z'))
      .utcTime(Tag.MDEntryTime, ms('2026-08-17T16:00:00.456Z')).finish()));
    expect(message.getString(Tag.Price)).toBe('42');
    expect(message.getPriceCents(Tag.Price)).toBe(4200);
    expect(message.getString(Tag.OrderQty)).toBe('10.5'); // decimals beyond the minimum only when non-zero
    expect(message.getString(Tag.CumQty)).toBe('0.05');
    expect(message.getString(Tag.MiscFeeAmt)).toBe('0.0006'); // sub-cent fee keeps its digits
    expect(message.getString(Tag.SettlementPrice)).toBe('30.60');
    expect(message.getString(Tag.MDEntryDate)).toBe('20260817');
    expect(message.getString(Tag.MDEntryTime)).toBe('16:00:00.456');
  });
});

describe('field codecs', () => {
  it('round-trips random integers, prices, counts and money exactly', () => {
    const random = new SeededRandom(7);
    const encoder = new FixEncoder();
    for (let round = 0; round < 500; round++) {
      const integer = random.nextUint32() * 2048 + random.nextInt(2048) - 2 ** 42;
      const price = random.nextInt(10_001);
      const count = random.nextUint32() * 16 + random.nextInt(16);
      const money = (random.nextUint32() - 2 ** 31) * 1000 + random.nextInt(1000);
      const message = parsed(Buffer.from(encoder.begin('8', 'A', 'B', round + 1, 0)
        .int(Tag.ExDestination, integer).price(Tag.Price, price).count(Tag.OrderQty, count)
        .dollars(Tag.CollateralAmountChange, money, random.chance(1, 2) ? 2 : 4).finish()));
      expect(message.getInt(Tag.ExDestination)).toBe(integer);
      expect(message.getPrice(Tag.Price)).toBe(price);
      expect(message.getCount(Tag.OrderQty)).toBe(count);
      expect(message.getDollars(Tag.CollateralAmountChange)).toBe(money);
    }
  });

  it('formats and parses timestamps like Date, over 1970-2100', () => {
    const random = new SeededRandom(11);
    const encoder = new FixEncoder();
    for (let round = 0; round < 500; round++) {
      const time = random.nextUint32() * 1000 + random.nextInt(1000); // up to about 2106
      const iso = new Date(time).toISOString();
      const expected = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 23)}`;
      expect(formatUtcTimestamp(time)).toBe(expected);
      const message = parsed(Buffer.from(encoder.begin('0', 'A', 'B', 1, time).finish()));
      expect(message.getTimestamp(Tag.SendingTime)).toBe(time);
    }
  });

  it.each([
    ['20261122-14:30:00', '2026-11-22T14:30:00.000Z'],
    ['20261122-14:30:00.1', '2026-11-22T14:30:00.100Z'],
    ['20261122-14:30:00.125678', '2026-11-22T14:30:00.125Z'],
    ['20261122-14:30:00.125678912', '2026-11-22T14:30:00.125Z'],
  ])('reads timestamp %s', (text, expected) => {
    const message = parsed(Buffer.from(new FixEncoder().begin('0', 'A', 'B', 1, 0).string(Tag.TransactTime, text).finish()));
    expect(message.getTimestamp(Tag.TransactTime)).toBe(ms(expected));
  });

  it.each(['20260231-00:00:00', '2026112-14:30:00.125', '20261122 14:30:00', '20261122-24:00:00', '20261122-14:30:00.', '19691231-23:59:59'])(
    'rejects timestamp %j', (text) => {
      const message = parsed(Buffer.from(new FixEncoder().begin('0', 'A', 'B', 1, 0).string(Tag.TransactTime, text).finish()));
      expect(message.getTimestamp(Tag.TransactTime)).toBe(-1);
    });

  it.each(['.5', '1.', '1e3', '+1', '0.42000001', '0x10', '--1', '1.2.3'])('getPrice rejects %j without a float', (text) => {
    const message = parsed(Buffer.from(new FixEncoder().begin('0', 'A', 'B', 1, 0).string(Tag.Price, text).finish()));
    expect(message.getPrice(Tag.Price)).toBe(INT_INVALID);
  });

  it('accessors of absent tags return sentinels', () => {
    const message = parsed(Buffer.from(new FixEncoder().begin('0', 'A', 'B', 1, 0).finish()));
    expect(message.has(Tag.Price)).toBe(false);
    expect(message.getInt(Tag.Price)).toBe(INT_INVALID);
    expect(message.getPrice(Tag.Price)).toBe(INT_INVALID);
    expect(message.getString(Tag.Price)).toBeNull();
    expect(message.getFlag(Tag.PossDupFlag)).toBe(false);
    expect(message.getTimestamp(Tag.TransactTime)).toBe(-1);
  });
});

describe('repeating groups', () => {
  const legs = new Set([Tag.MultivariateSelectedEventTicker, Tag.MultivariateSelectedMarketTicker, Tag.MultivariateSelectedSide]);
  const build = (declared: number, entries: number): FixMessage => {
    const encoder = new FixEncoder().begin('R', 'A', 'B', 1, 0).string(Tag.QuoteReqID, 'q1').int(Tag.NoMultivariateSelectedLegs, declared);
    for (let i = 0; i < entries; i++) {
      encoder.string(Tag.MultivariateSelectedEventTicker, `EV${i}`).string(Tag.MultivariateSelectedMarketTicker, `MK${i}`);
      if (i % 2 === 0) encoder.string(Tag.MultivariateSelectedSide, 'yes');
    }
    return parsed(Buffer.from(encoder.string(Tag.Text, 'after').finish()));
  };

  it('iterates entries by count and delimiter, with optional fields absent in some entries', () => {
    const message = build(3, 3);
    const group = new FixGroup(8);
    expect(message.readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, group, legs)).toBe(3);
    const sides: (string | null)[] = [];
    for (let k = 0; k < group.count; k++) {
      expect(message.stringAt(message.indexOf(Tag.MultivariateSelectedMarketTicker, group.start(k), group.end(k)))).toBe(`MK${k}`);
      const side = message.indexOf(Tag.MultivariateSelectedSide, group.start(k), group.end(k));
      sides.push(side === -1 ? null : message.stringAt(side));
    }
    expect(sides).toEqual(['yes', null, 'yes']);
    expect(message.indexOf(Tag.Text, group.start(2), group.end(2))).toBe(-1);
  });

  it('reports a count that does not match the entries, or exceeds capacity, as -1', () => {
    const group = new FixGroup(2);
    expect(build(3, 2).readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, group, legs)).toBe(-1);
    expect(build(2, 3).readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, group, legs)).toBe(2);
    expect(build(3, 3).readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, group, legs)).toBe(-1);
    expect(build(0, 0).readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, group, legs)).toBe(0);
    expect(build(0, 0).readGroup(Tag.NoMDEntries, Tag.MDEntryType, group)).toBe(0);
  });
});

describe('vocabulary', () => {
  it('session kinds follow fix.md §1', () => {
    expect(SESSION_KINDS.KalshiNR).toMatchObject({ port: 8228, retransmits: false, resetSeqNumRequired: true });
    expect(SESSION_KINDS.KalshiRT).toMatchObject({ port: 8230, retransmits: true, resetSeqNumRequired: false });
    expect(SESSION_KINDS.KalshiDC).toMatchObject({ port: 8229, retransmits: false, resetSeqNumRequired: true });
    expect(SESSION_KINDS.KalshiPT).toMatchObject({ port: 8231, retransmits: true, resetSeqNumRequired: false });
    expect(SESSION_KINDS.KalshiRFQ).toMatchObject({ port: 8232, retransmits: false, resetSeqNumRequired: true });
    expect(SESSION_KINDS.KalshiMD).toMatchObject({ port: 8233, host: 'market-data', resetSeqNumRequired: true });
    expect(sessionKindOf('ExchangeMD')?.name).toBe('KalshiMD');
    expect(sessionKindOf('Kalshi')).toBeNull();
    expect(sessionKindOf('toString')).toBeNull();
  });

  it('custom tags carry the numbers fix.md gives', () => {
    expect([Tag.ExDestination, Tag.AllocAccount, Tag.UseDollars, Tag.CancelOrderOnPause, Tag.RfqId, Tag.AcceptQuoteStatus,
      Tag.SplitCollateralReturn, Tag.SingleMarketCollateralReturn, Tag.RangedMarketCollateralReturn, Tag.NoMVEOffendingLegs,
      Tag.MVEOffendingMarketTicker, Tag.MVEValidationReasonCode, Tag.AggressorSide, Tag.ClearingBusinessDate, Tag.LastMkt])
      .toEqual([100, 79, 21005, 21006, 21023, 21025, 21027, 21030, 21031, 20185, 20186, 20187, 2446, 715, 30]);
  });

  it('documents every error code', () => {
    const codes = Object.keys(FIX_ERROR_CODES);
    expect(codes.length).toBeGreaterThan(5);
    for (const code of codes) expect(FIX_ERROR_CODES[code as keyof typeof FIX_ERROR_CODES].length).toBeGreaterThan(5);
  });
});
