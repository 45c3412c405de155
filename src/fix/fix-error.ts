/**
 * The coded failures of the FIX library, and what the receiving side should do about each one.
 * Framing failures are reported as values through a handler (never thrown out of the parser);
 * encoder misuse and store I/O failures are thrown. The action follows fix.md where it speaks
 * and standard FIXT session rules where it is silent: a garbled message is dropped without
 * consuming a sequence number, a well-framed message with a bad field gets Reject(35=3), and a
 * stream we can no longer trust is disconnected.
 */

export type FixErrorCode =
  | 'FIX_NOISE_SKIPPED' // bytes before a "8=FIXT.1.1" were discarded
  | 'FIX_BAD_BEGIN_STRING' // BeginString is not FIXT.1.1
  | 'FIX_BAD_BODY_LENGTH' // BodyLength(9) missing, malformed, or not ending where CheckSum starts
  | 'FIX_BAD_CHECKSUM' // CheckSum(10) malformed or not the byte sum
  | 'FIX_MSG_TYPE_NOT_THIRD' // MsgType(35) is not the third field
  | 'FIX_MESSAGE_TOO_LARGE' // a message longer than the configured bound
  | 'FIX_TOO_MANY_FIELDS' // more fields than the parser's preallocated index holds
  | 'FIX_VALUE_INVALID' // encoder: a value that cannot be written (SOH, non-ASCII, unsafe integer)
  | 'FIX_NOT_LOGGED_ON' // session: an application send before logon completed
  | 'FIX_STORE_IO' // sequence store: file I/O failed or the file is corrupt
  | 'FIX_KEY_INVALID'; // logon signature: unusable key

/** What the receiver of a framing error should do. */
export type FixErrorAction = 'ignore' | 'disconnect' | 'throw';

export class FixError extends Error {
  readonly code: FixErrorCode;
  readonly action: FixErrorAction;
  /** Bytes the framer dropped because of this error (0 when not a framing error). */
  readonly bytesDropped: number;
  constructor(code: FixErrorCode, message: string, action: FixErrorAction = 'throw', bytesDropped = 0) {
    super(message);
    this.name = 'FixError';
    this.code = code;
    this.action = action;
    this.bytesDropped = bytesDropped;
  }
}

/** Every code with its one-line meaning; a test checks each code is listed (STYLE §4). */
export const FIX_ERROR_CODES: Readonly<Record<FixErrorCode, string>> = Object.freeze({
  FIX_NOISE_SKIPPED: 'bytes before a message start were skipped',
  FIX_BAD_BEGIN_STRING: 'BeginString is not FIXT.1.1; disconnect',
  FIX_BAD_BODY_LENGTH: 'BodyLength missing or wrong; message dropped',
  FIX_BAD_CHECKSUM: 'CheckSum wrong; message dropped',
  FIX_MSG_TYPE_NOT_THIRD: 'MsgType is not the third field; message dropped',
  FIX_MESSAGE_TOO_LARGE: 'message exceeds the size bound; disconnect',
  FIX_TOO_MANY_FIELDS: 'message has more fields than the parser holds; disconnect',
  FIX_VALUE_INVALID: 'a field value cannot be encoded',
  FIX_NOT_LOGGED_ON: 'the session is not logged on',
  FIX_STORE_IO: 'sequence store I/O failed',
  FIX_KEY_INVALID: 'the logon key is unusable',
});
