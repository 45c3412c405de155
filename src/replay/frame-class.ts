/**
 * Sorting a recording's frames once, before a replay: which are delivered to the feed, which are
 * public trades (also handed to the replay venue), and which are skipped (replies to the live
 * run's commands, and the live orders' private messages). Also the sid each channel's recorded
 * `subscribed` reply gave it. A scan of each frame's first bytes for its "type"; never on the
 * replay's timed path.
 */

import { RecordKind } from '../record/index.ts';
import type { Recording } from '../record/index.ts';

/**
 * DELIVER: handed to the feed as recorded. TRADE: the same, then to the venue. SKIP: not replayed.
 * SEQ_OK: a recorded `ok` that took a number from a book stream's seq (a get_snapshot reply):
 * replayed without its command id, so the seq count goes on exactly as it did live.
 */
export const FrameClass = { DELIVER: 0, TRADE: 1, SKIP: 2, SEQ_OK: 3 } as const;

// The exchange sends order groups' news as type "order_group_updates"; replayed, a recorded "deleted"
// would delete the replay's group of the same engine id (ORDER_GROUP_UNKNOWN that never happened live).
const PRIVATE_TYPES = new Set(['fill', 'user_order', 'market_position', 'order_group_update', 'order_group_updates']);
const REPLY_TYPES = new Set(['subscribed', 'ok', 'unsubscribed', 'error']);
const TYPE_PATTERN = /"type":"([a-z_0-9]+)"/;
const HEAD_BYTES = 96;

export interface FrameClasses {
  classes: Uint8Array;
  sidsByChannel: Map<string, number>;
  /** For SEQ_OK records: the id-less `ok` text to deliver instead. */
  seqOks: Map<number, string>;
}

/** `classes` (one code a record) may be given: shared-recording.ts writes them into shared memory. */
export function classifyFrames(recording: Recording, classes: Uint8Array = new Uint8Array(recording.count)): FrameClasses {
  const sidsByChannel = new Map<string, number>();
  const seqOks = new Map<number, string>();
  for (let i = 0; i < recording.count; i++) {
    if (recording.kinds[i] !== RecordKind.FRAME) continue;
    const start = recording.bodyStarts[i];
    const end = start + recording.bodyLengths[i];
    const head = recording.bytes.toString('latin1', start, Math.min(end, start + HEAD_BYTES));
    const type = TYPE_PATTERN.exec(head)?.[1] ?? '';
    const isReply = head.startsWith('{"id":') && REPLY_TYPES.has(type);
    if (isReply) {
      classes[i] = FrameClass.SKIP;
      if (type === 'subscribed') learnSid(recording.bytes.toString('utf8', start, end), sidsByChannel);
      if (type === 'ok') {
        const seqOk = idlessSeqOk(recording.bytes.toString('utf8', start, end));
        if (seqOk !== null) {
          classes[i] = FrameClass.SEQ_OK;
          seqOks.set(i, seqOk);
        }
      }
    } else if (PRIVATE_TYPES.has(type)) classes[i] = FrameClass.SKIP;
    else classes[i] = type === 'trade' ? FrameClass.TRADE : FrameClass.DELIVER;
  }
  return { classes, sidsByChannel, seqOks };
}

function learnSid(text: string, sids: Map<string, number>): void {
  try {
    const reply = JSON.parse(text) as { msg?: { channel?: unknown; sid?: unknown } };
    const channel = reply.msg?.channel;
    const sid = reply.msg?.sid;
    // The first subscription of a channel wins: a later one (after a reconnect) is a new session's.
    if (typeof channel === 'string' && typeof sid === 'number' && !sids.has(channel)) sids.set(channel, sid);
  } catch {
    // A reply that does not parse names no sid; the session then picks a fresh one.
  }
}

/** `{"type":"ok","sid":S,"seq":Q,"msg":{}}` for a recorded ok carrying both, else null. */
function idlessSeqOk(text: string): string | null {
  try {
    const reply = JSON.parse(text) as { sid?: unknown; seq?: unknown };
    if (typeof reply.sid !== 'number' || typeof reply.seq !== 'number') return null;
    return `{"type":"ok","sid":${reply.sid},"seq":${reply.seq},"msg":{}}`;
  } catch {
    return null;
  }
}
