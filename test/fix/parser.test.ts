// Goal: the streaming framer delivers every well-framed message exactly once whatever the chunking,
// and turns every garbled input into a coded FixError value (never a throw, never unbounded
// buffering), resynchronising on the next message.
// Method: a stream of encoded messages is fed split at every offset, byte by byte, and coalesced;
// hand-made corruptions (bad checksum, bad length, wrong BeginString, MsgType not third, huge
// lengths, truncation, empty values, bad tags, data-length mismatch) check the code and the action;
// seeded random noise and random byte flips (bounded rounds) check the framer never throws and
// that good messages around the noise still arrive.
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/index.ts';
import {
  FixEncoder, FixError, FixFramer, FixMessage, parseMessage, REJECT_NONE, SessionRejectReason, Tag,
} from '../../src/fix/index.ts';

interface Seen {
  seqs: number[];
  rejects: [number, number, number][]; // seq, reason, tag
  errors: FixError[];
}

function collector(options: { messageBytesMax?: number } = {}): { framer: FixFramer; seen: Seen } {
  const seen: Seen = { seqs: [], rejects: [], errors: [] };
  const framer = new FixFramer({
    onMessage(message: FixMessage) {
      seen.seqs.push(message.msgSeqNum);
      if (message.rejectReason !== REJECT_NONE) seen.rejects.push([message.msgSeqNum, message.rejectReason, message.rejectTag]);
    },
    onError(error: FixError) {
      seen.errors.push(error);
    },
  }, options);
  return { framer, seen };
}

const encoder = new FixEncoder();
function message(seq: number, text = `order ${seq}`): Buffer {
  return Buffer.from(encoder.begin('D', 'KEY', 'KalshiNR', seq, 1_790_000_000_000 + seq).string(Tag.ClOrdID, `c${seq}`)
    .string(Tag.Text, text).price(Tag.Price, 4200 + seq).finish());
}
const wire = (text: string): Buffer => Buffer.from(text.replace(/\|/g, '\x01'), 'latin1');

/** A message with a correct checksum over arbitrary (possibly inconsistent) header text. */
function withChecksum(textWithoutTrailer: string): Buffer {
  const bytes = wire(textWithoutTrailer);
  let sum = 0;
  for (const byte of bytes) sum += byte;
  return Buffer.concat([bytes, wire(`10=${String(sum % 256).padStart(3, '0')}|`)]);
}

describe('chunking', () => {
  const stream = Buffer.concat([message(1), message(2, 'x'.repeat(300)), message(3)]);

  it('delivers the same messages for every split point', () => {
    for (let split = 0; split <= stream.length; split++) {
      const { framer, seen } = collector();
      framer.push(stream.subarray(0, split));
      framer.push(stream.subarray(split));
      expect(seen.seqs).toEqual([1, 2, 3]);
      expect(seen.errors).toEqual([]);
      expect(framer.bufferedBytes).toBe(0);
    }
  });

  it('delivers byte by byte and all coalesced in one chunk', () => {
    const byByte = collector();
    for (let i = 0; i < stream.length; i++) byByte.framer.push(stream.subarray(i, i + 1));
    expect(byByte.seen.seqs).toEqual([1, 2, 3]);
    const whole = collector();
    whole.framer.push(Buffer.concat([stream, stream]));
    expect(whole.seen.seqs).toEqual([1, 2, 3, 1, 2, 3]);
    expect(whole.seen.errors).toEqual([]);
  });

  it('handles chunks larger than its buffer (many messages in one push)', () => {
    const many = Buffer.concat(Array.from({ length: 400 }, (_, i) => message(i + 1, 'y'.repeat(200))));
    const { framer, seen } = collector({ messageBytesMax: 1024 });
    expect(many.length).toBeGreaterThan(10 * 1024);
    framer.push(many);
    expect(seen.seqs).toHaveLength(400);
    expect(seen.seqs[399]).toBe(400);
    expect(seen.errors).toEqual([]);
  });

  it('reads a leading-zero BodyLength (engines that pad tag 9)', () => {
    const { framer, seen } = collector();
    framer.push(withChecksum('8=FIXT.1.1|9=0000045|35=0|49=A|56=B|34=7|52=19700101-00:00:00.000|'));
    expect(seen.seqs).toEqual([7]);
  });
});

describe('garbled frames', () => {
  const good = message(5);

  function feed(bytes: Buffer): Seen {
    const { framer, seen } = collector({ messageBytesMax: 4096 });
    framer.push(bytes);
    framer.push(good); // the stream recovers on the next good message
    return seen;
  }

  it('drops a bad checksum (ignore) and keeps going', () => {
    const bad = Buffer.from(message(4));
    bad[bad.length - 2] = bad[bad.length - 2] === 0x30 ? 0x31 : 0x30;
    const seen = feed(bad);
    expect(seen.errors.map((e) => [e.code, e.action])).toEqual([['FIX_BAD_CHECKSUM', 'ignore']]);
    expect(seen.seqs).toEqual([5]);
  });

  it('drops a body length that is too short or too long and resynchronises', () => {
    const text = message(4).toString('latin1');
    const length = Number(/\x019=(\d+)\x01/.exec(text)?.[1]);
    for (const wrong of [length - 3, length + 3, length + 200]) {
      const bad = Buffer.from(text.replace(`\x019=${length}\x01`, `\x019=${wrong}\x01`), 'latin1');
      const { framer, seen } = collector();
      framer.push(bad);
      framer.push(good);
      framer.push(message(6, 'z'.repeat(250)));
      expect(seen.errors[0].code).toBe('FIX_BAD_BODY_LENGTH');
      expect(seen.errors.every((e) => e.action === 'ignore')).toBe(true);
      expect(seen.seqs).toEqual([5, 6]);
    }
  });

  it.each([
    ['non-numeric BodyLength', '8=FIXT.1.1|9=4x|35=0|', 'FIX_BAD_BODY_LENGTH', 'ignore'],
    ['missing BodyLength', '8=FIXT.1.1|35=0|49=A|', 'FIX_BAD_BODY_LENGTH', 'ignore'],
    ['wrong BeginString', '8=FIX.4.4|9=5|35=0|10=000|', 'FIX_BAD_BEGIN_STRING', 'disconnect'],
    ['huge BodyLength', '8=FIXT.1.1|9=999999999|35=0|', 'FIX_MESSAGE_TOO_LARGE', 'disconnect'],
    ['too many BodyLength digits', '8=FIXT.1.1|9=12345678901234|35=0|', 'FIX_BAD_BODY_LENGTH', 'ignore'],
  ])('%s -> %s (%s)', (_name, text, code, action) => {
    const seen = feed(wire(text));
    expect(seen.errors[0].code).toBe(code);
    expect(seen.errors[0].action).toBe(action);
    expect(seen.seqs).toEqual([5]);
  });

  it('drops a message whose third field is not MsgType', () => {
    const seen = feed(withChecksum('8=FIXT.1.1|9=15|49=A|35=0|34=9|'));
    expect(seen.errors.map((e) => e.code)).toEqual(['FIX_MSG_TYPE_NOT_THIRD']);
    expect(seen.seqs).toEqual([5]);
  });

  it('skips noise before 8=FIX and reports how many bytes', () => {
    const seen = feed(Buffer.concat([wire('garbage\x00\xff8=FI'), message(4)]));
    expect(seen.errors[0].code).toBe('FIX_NOISE_SKIPPED');
    expect(seen.errors[0].bytesDropped).toBe(13); // "garbage\0\xff8=FI" up to the real start
    expect(seen.seqs).toEqual([4, 5]);
  });

  it('waits for a truncated message without reporting, then completes it', () => {
    const { framer, seen } = collector();
    framer.push(good.subarray(0, good.length - 4));
    expect(seen.seqs).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect(framer.bufferedBytes).toBe(good.length - 4);
    framer.push(good.subarray(good.length - 4));
    expect(seen.seqs).toEqual([5]);
  });

  it('bounds buffering: a frame announcing more than the maximum is refused at once', () => {
    const { framer, seen } = collector({ messageBytesMax: 1024 });
    framer.push(wire('8=FIXT.1.1|9=5000|35=D|'));
    framer.push(Buffer.alloc(3000, 0x41));
    expect(seen.errors[0].code).toBe('FIX_MESSAGE_TOO_LARGE');
    expect(framer.bufferedBytes).toBeLessThanOrEqual(1024 + 64);
  });

  it('parseMessage reports truncation and trailing garbage as values', () => {
    expect((parseMessage(good.subarray(0, good.length - 1)) as FixError).code).toBe('FIX_BAD_BODY_LENGTH');
    expect((parseMessage(Buffer.alloc(0)) as FixError).code).toBe('FIX_BAD_BODY_LENGTH');
    expect(parseMessage(good)).toBeInstanceOf(FixMessage);
  });
});

describe('field-level problems keep the frame and name a SessionRejectReason', () => {
  it.each([
    ['empty value', '8=FIXT.1.1|9=25|35=D|34=3|58=|11=abc|', SessionRejectReason.TAG_WITHOUT_VALUE, 58],
    ['non-numeric tag', '8=FIXT.1.1|9=24|35=D|34=3|5x=1|11=ab|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
    ['leading-zero tag', '8=FIXT.1.1|9=24|35=D|34=3|058=1|11=a|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
    ['field without =', '8=FIXT.1.1|9=20|35=D|34=3|5811abc|11=a|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
    ['RawDataLength not matching RawData', '8=FIXT.1.1|9=29|35=A|34=3|95=9|96=abcd|', SessionRejectReason.VALUE_INCORRECT, 95],
  ])('%s', (_name, text, reason, tag) => {
    const body = /\|9=\d+\|(.*)$/.exec(text)?.[1] ?? '';
    const fixed = text.replace(/\|9=\d+\|/, `|9=${body.length}|`);
    const { framer, seen } = collector();
    framer.push(withChecksum(fixed));
    expect(seen.errors).toEqual([]);
    expect(seen.seqs).toEqual([3]);
    expect(seen.rejects).toEqual([[3, reason, tag]]);
  });

  it('reads a data field that holds SOH by its announced length', () => {
    const { framer, seen } = collector();
    const value = 'ab\x01cd';
    const body = `35=A|34=3|95=5|96=${value}|108=30|`;
    framer.push(withChecksum(`8=FIXT.1.1|9=${body.length}|${body}`));
    expect(seen.rejects).toEqual([]);
    expect(seen.seqs).toEqual([3]);
  });
});

describe('the field index agrees with a plain split, at every alignment', () => {
  /** [tag, value] pairs of a message split on SOH and '=' (no data fields), the reference. */
  function reference(bytes: Buffer): [number, string][] {
    const text = bytes.toString('latin1');
    return text.split('\x01').slice(0, -1).map((field): [number, string] => {
      const eq = field.indexOf('=');
      return [Number(field.slice(0, eq)), field.slice(eq + 1)];
    });
  }
  function indexed(message: FixMessage): [number, string][] {
    const fields: [number, string][] = [];
    for (let i = 0; i < message.fieldCount; i++) fields.push([message.tagAt(i), message.stringAt(i) ?? '']);
    return fields;
  }
  /** The message copied to `offset` bytes into a fresh buffer, so word reads start off alignment. */
  function at(offset: number, bytes: Buffer): Buffer {
    const holder = Buffer.alloc(bytes.length + 8);
    bytes.copy(holder, offset);
    return holder.subarray(offset, offset + bytes.length);
  }

  it('random long messages with bytes 0x00 and >= 0x80 in values index every field', () => {
    const random = new SeededRandom(14);
    for (let round = 0; round < 300; round++) {
      const fieldCount = 5 + random.nextInt(60);
      let body = '35=8|34=7|';
      for (let f = 0; f < fieldCount; f++) {
        let value = '';
        const length = 1 + random.nextInt(24);
        for (let c = 0; c < length; c++) {
          let code = random.nextInt(256);
          if (code === 1 || code === 0x3d || code === 0x7c) code = 0; // SOH ends a value; '=' kept out for the reference split, '|' is how the test writes SOH
          value += String.fromCharCode(code);
        }
        let tag = 1 + random.nextInt(9_000);
        if ([90, 93, 95, 212, 354].includes(tag)) tag++; // a data-length tag would announce the next value's length
        body += `${tag}=${value}|`;
      }
      const bytes = withChecksum(`8=FIXT.1.1|9=${Buffer.byteLength(wire(body))}|${body}`);
      for (let offset = 0; offset < 4; offset++) {
        const parsed = parseMessage(at(offset, bytes));
        expect(parsed).toBeInstanceOf(FixMessage);
        const message = parsed as FixMessage;
        expect(message.rejectReason).toBe(REJECT_NONE);
        expect(indexed(message)).toEqual(reference(bytes));
        expect(message.msgSeqNum).toBe(7);
      }
    }
  });

  it.each([
    ['empty value', '58=|', SessionRejectReason.TAG_WITHOUT_VALUE, 58],
    ['non-numeric tag', '5x=1|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
    ['leading-zero tag', '058=1|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
    ['field without =', '5811abc|', SessionRejectReason.INVALID_TAG_NUMBER, 0],
  ])('a long message with a %s keeps the frame and names the reason', (_name, problem, reason, tag) => {
    const body = `35=D|34=3|58=${'x'.repeat(90)}|${problem}11=abc|`;
    const bytes = withChecksum(`8=FIXT.1.1|9=${body.length}|${body}`);
    for (let offset = 0; offset < 4; offset++) {
      const message = parseMessage(at(offset, bytes)) as FixMessage;
      expect(message).toBeInstanceOf(FixMessage);
      expect([message.msgSeqNum, message.rejectReason, message.rejectTag]).toEqual([3, reason, tag]);
      expect(message.getString(Tag.ClOrdID)).toBe('abc');
    }
  });

  it('a long Logon whose RawData holds SOH is read by its announced length', () => {
    const value = `${'s'.repeat(80)}\x01${'t'.repeat(40)}`;
    const body = `35=A|34=1|95=${value.length}|96=${value}|108=30|`;
    const bytes = withChecksum(`8=FIXT.1.1|9=${body.length}|${body}`);
    for (let offset = 0; offset < 4; offset++) {
      const message = parseMessage(at(offset, bytes)) as FixMessage;
      expect(message.rejectReason).toBe(REJECT_NONE);
      expect(message.getString(Tag.RawData)).toBe(value.replace(/\|/g, '\x01'));
      expect(message.getInt(108)).toBe(30);
    }
  });
});

describe('fuzz (seeded, bounded)', () => {
  it('random binary noise between good messages never throws and loses no good message', () => {
    const random = new SeededRandom(2024);
    for (let round = 0; round < 200; round++) {
      const { framer, seen } = collector({ messageBytesMax: 2048 });
      const parts: Buffer[] = [];
      for (let k = 1; k <= 5; k++) {
        const noise = Buffer.alloc(random.nextInt(300));
        for (let i = 0; i < noise.length; i++) noise[i] = random.nextInt(256);
        // A noise run ending in part of a prefix must not swallow the message after it.
        parts.push(noise, wire('|'), message(k));
      }
      const stream = Buffer.concat(parts);
      let offset = 0;
      while (offset < stream.length) {
        const size = 1 + random.nextInt(200);
        expect(() => framer.push(stream.subarray(offset, offset + size))).not.toThrow();
        offset += size;
      }
      expect(seen.seqs.filter((seq) => seq >= 1 && seq <= 5)).toEqual([1, 2, 3, 4, 5]);
      expect(seen.errors.every((e) => e instanceof FixError && typeof e.code === 'string')).toBe(true);
    }
  });

  it('random byte flips in a message stream are reported, never thrown', () => {
    const random = new SeededRandom(99);
    const clean = Buffer.concat([message(1), message(2), message(3), message(4)]);
    let reported = 0;
    for (let round = 0; round < 500; round++) {
      const corrupt = Buffer.from(clean);
      const flips = 1 + random.nextInt(4);
      for (let f = 0; f < flips; f++) corrupt[random.nextInt(corrupt.length)] = random.nextInt(256);
      const { framer, seen } = collector({ messageBytesMax: 1024 });
      expect(() => framer.push(corrupt)).not.toThrow();
      // A flipped BodyLength may make the framer wait for more bytes (up to the bound): feed good
      // messages until one comes through, at most enough to fill the bound.
      for (let k = 0; k < 12 && !seen.seqs.includes(9); k++) expect(() => framer.push(message(9))).not.toThrow();
      reported += seen.errors.length + seen.rejects.length;
      expect(seen.seqs).toContain(9);
      expect(seen.seqs.at(-1)).toBe(9);
      expect(framer.bufferedBytes).toBe(0);
    }
    expect(reported).toBeGreaterThan(400);
  });
});
