/**
 * Field values on bytes: integers, fixed-point decimals and UTC timestamps read from and written to
 * a Buffer in place, with no string and no float in between ("0.4200" <-> 4200). The encoder and
 * the parser share these so a value written is read back exactly. Readers return a sentinel on bad
 * input; writers return the position after the value and assume the caller reserved the room.
 */

/** Returned by integer and fixed-point readers for absent or malformed values. */
export const INT_INVALID = Number.MIN_SAFE_INTEGER;

const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
// 16 digits already pass a safe integer; anything longer is not a number we accept.
const DIGITS_MAX = 16;

/** Signed decimal integer ("-1", "0042"); INT_INVALID when malformed or unsafe. */
export function readInt(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let negative = false;
  if (i < end && bytes[i] === MINUS) {
    negative = true;
    i++;
  }
  if (i === end || end - i > DIGITS_MAX) return INT_INVALID;
  let value = 0;
  for (; i < end; i++) {
    const digit = bytes[i] - ZERO;
    if (digit < 0 || digit > 9) return INT_INVALID;
    value = value * 10 + digit;
  }
  if (!Number.isSafeInteger(value)) return INT_INVALID;
  return negative && value !== 0 ? -value : value;
}

/**
 * Fixed-point text scaled to `scale` decimals: "0.42" at scale 4 -> 4200. Decimals beyond `scale`
 * are accepted only when they are zeros ("10.000" as a count), so nothing is ever rounded.
 */
export function readFixed(bytes: Uint8Array, start: number, end: number, scale: number, signed: boolean): number {
  let i = start;
  let negative = false;
  if (signed && i < end && bytes[i] === MINUS) {
    negative = true;
    i++;
  }
  if (end - i > DIGITS_MAX + 8) return INT_INVALID;
  let value = 0;
  let integerDigits = 0;
  for (; i < end; i++) {
    const code = bytes[i];
    if (code === DOT) break;
    const digit = code - ZERO;
    if (digit < 0 || digit > 9) return INT_INVALID;
    value = value * 10 + digit;
    integerDigits++;
  }
  if (integerDigits === 0) return INT_INVALID;
  let decimals = 0;
  if (i < end) {
    i++; // past '.'
    if (i === end) return INT_INVALID;
    for (; i < end; i++) {
      const digit = bytes[i] - ZERO;
      if (digit < 0 || digit > 9) return INT_INVALID;
      decimals++;
      if (decimals > scale) {
        if (digit !== 0) return INT_INVALID;
      } else {
        value = value * 10 + digit;
      }
    }
  }
  const scaled = value * POW10[scale - (decimals > scale ? scale : decimals)];
  if (!Number.isSafeInteger(scaled)) return INT_INVALID;
  return negative && scaled !== 0 ? -scaled : scaled;
}

/** Number of decimal digits of a non-negative safe integer. */
export function digitCount(value: number): number {
  let digits = 1;
  while (value >= 10) {
    value = Math.floor(value / 10);
    digits++;
  }
  return digits;
}

/** Writes a non-negative safe integer's digits at `pos`; returns the position after them. */
export function writeDigits(bytes: Uint8Array, pos: number, value: number): number {
  const end = pos + digitCount(value);
  let i = end;
  do {
    const quotient = Math.floor(value / 10);
    bytes[--i] = ZERO + (value - quotient * 10);
    value = quotient;
  } while (value > 0);
  return end;
}

/** Writes `value` zero-padded to exactly `width` digits (value < 10^width). */
export function writePadded(bytes: Uint8Array, pos: number, value: number, width: number): number {
  for (let i = pos + width - 1; i >= pos; i--) {
    const quotient = Math.floor(value / 10);
    bytes[i] = ZERO + (value - quotient * 10);
    value = quotient;
  }
  return pos + width;
}

/**
 * Writes `value` (units of 10^-scale, signed) with at least `decimalsMin` decimals and more, up to
 * `scale`, only when they are not zero: (4200, 4, 4) -> "0.4200"; (700, 4, 2) -> "0.07";
 * (1000, 2, 0) -> "10". Returns the new position.
 */
export function writeFixed(bytes: Uint8Array, pos: number, value: number, scale: number, decimalsMin: number): number {
  if (value < 0) {
    bytes[pos++] = MINUS;
    value = -value;
  }
  const unitsPerOne = POW10[scale];
  const whole = Math.floor(value / unitsPerOne);
  let fraction = value - whole * unitsPerOne;
  pos = writeDigits(bytes, pos, whole);
  let decimals = scale;
  while (decimals > decimalsMin && fraction % 10 === 0) {
    fraction /= 10;
    decimals--;
  }
  if (decimals === 0) return pos;
  bytes[pos++] = DOT;
  return writePadded(bytes, pos, fraction, decimals);
}

/** Worst-case byte length of writeFixed's output. */
export function fixedLengthMax(value: number, scale: number): number {
  return 2 + digitCount(Math.abs(Math.floor(value / POW10[scale]))) + scale;
}

// ---- UTC timestamps: YYYYMMDD-HH:MM:SS.mmm (fix.md §1), via civil-from-days arithmetic, no Date.

const MS_PER_DAY = 86_400_000;

/** Length of YYYYMMDD-HH:MM:SS.mmm. */
export const TIMESTAMP_LENGTH = 21;

/** Packs year*10000 + month*100 + day for the epoch day `days` (Hinnant's civil_from_days). */
function civilFromDays(days: number): number {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return year * 10_000 + month * 100 + day;
}

/** Epoch day of a civil date (Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Writes YYYYMMDD of epoch milliseconds `ms` (>= 0). */
export function writeUtcDate(bytes: Uint8Array, pos: number, ms: number): number {
  return writePadded(bytes, pos, civilFromDays(Math.floor(ms / MS_PER_DAY)), 8);
}

/** Writes HH:MM:SS.mmm of epoch milliseconds `ms` (>= 0). */
export function writeUtcTime(bytes: Uint8Array, pos: number, ms: number): number {
  let rest = ms - Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  pos = writePadded(bytes, pos, hours, 2);
  bytes[pos++] = 0x3a;
  pos = writePadded(bytes, pos, minutes, 2);
  bytes[pos++] = 0x3a;
  pos = writePadded(bytes, pos, seconds, 2);
  bytes[pos++] = DOT;
  return writePadded(bytes, pos, rest - seconds * 1000, 3);
}

/** Writes YYYYMMDD-HH:MM:SS.mmm; returns the position after it (21 bytes). */
export function writeUtcTimestamp(bytes: Uint8Array, pos: number, ms: number): number {
  pos = writeUtcDate(bytes, pos, ms);
  bytes[pos++] = MINUS;
  return writeUtcTime(bytes, pos, ms);
}

/** The same text as a string: for the Logon signature, which must match tag 52 byte for byte. */
export function formatUtcTimestamp(ms: number): string {
  const scratch = Buffer.allocUnsafe(TIMESTAMP_LENGTH);
  writeUtcTimestamp(scratch, 0, ms);
  return scratch.toString('latin1', 0, TIMESTAMP_LENGTH);
}

function readDigitsAt(bytes: Uint8Array, pos: number, width: number): number {
  let value = 0;
  for (let i = pos; i < pos + width; i++) {
    const digit = bytes[i] - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

// The last valid date readUtcTimestamp converted (timestamps in a stream share their date).
let lastDate = -1;
let lastDays = 0;

/**
 * Epoch milliseconds of YYYYMMDD-HH:MM:SS with an optional fraction of 1 to 9 digits (milliseconds
 * kept, finer digits truncated: §12 item 5 leaves microseconds open, so we accept them). -1 when
 * malformed or out of range.
 */
export function readUtcTimestamp(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length < 17 || length === 18 || length > 27) return -1;
  if (bytes[start + 8] !== MINUS || bytes[start + 11] !== 0x3a || bytes[start + 14] !== 0x3a) return -1;
  const year = readDigitsAt(bytes, start, 4);
  const month = readDigitsAt(bytes, start + 4, 2);
  const day = readDigitsAt(bytes, start + 6, 2);
  const hours = readDigitsAt(bytes, start + 9, 2);
  const minutes = readDigitsAt(bytes, start + 12, 2);
  const seconds = readDigitsAt(bytes, start + 15, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31) return -1;
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 60) return -1;
  let millis = 0;
  if (length > 17) {
    if (bytes[start + 17] !== DOT) return -1;
    for (let i = start + 18; i < end; i++) {
      const digit = bytes[i] - ZERO;
      if (digit < 0 || digit > 9) return -1;
      if (i < start + 21) millis = millis * 10 + digit;
    }
    const fractionDigits = end - start - 18;
    if (fractionDigits < 3) millis *= POW10[3 - fractionDigits];
  }
  const date = year * 10_000 + month * 100 + day;
  let days: number;
  if (date === lastDate) days = lastDays; // the same valid date as the last timestamp read
  else {
    days = daysFromCivil(year, month, day);
    if (civilFromDays(days) !== date) return -1; // 20260231
    lastDate = date;
    lastDays = days;
  }
  return days * MS_PER_DAY + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + millis;
}
