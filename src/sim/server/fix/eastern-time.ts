/**
 * US Eastern calendar arithmetic for the FIX acceptor: ClearingBusinessDate(715) is the Eastern
 * date of TransactTime (fix.md §5), and a Day order (59=0) lives until 23:59:59.999 ET (fix.md §1).
 * Uses the runtime's ICU time-zone data (America/New_York, daylight saving included) through one
 * Intl formatter built at load; the simulator calls this once per report, off any hot path.
 */

const EASTERN = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York', hourCycle: 'h23',
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

interface EasternParts { year: number; month: number; day: number; hour: number; minute: number; second: number }

function partsOf(epochMs: number): EasternParts {
  const out: EasternParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of EASTERN.formatToParts(epochMs)) {
    switch (part.type) {
      case 'year': out.year = Number(part.value); break;
      case 'month': out.month = Number(part.value); break;
      case 'day': out.day = Number(part.value); break;
      case 'hour': out.hour = Number(part.value) % 24; break;
      case 'minute': out.minute = Number(part.value); break;
      case 'second': out.second = Number(part.value); break;
      default: break;
    }
  }
  return out;
}

/** The Eastern calendar date of `epochMs` as YYYYMMDD (20261122). */
export function easternDate(epochMs: number): number {
  const p = partsOf(epochMs);
  return p.year * 10_000 + p.month * 100 + p.day;
}

/** Eastern wall time minus UTC at `epochMs`, ms (-5 h or -4 h). */
function offsetMs(epochMs: number): number {
  const p = partsOf(epochMs);
  const wholeSecondMs = epochMs - (((epochMs % 1000) + 1000) % 1000);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - wholeSecondMs;
}

/** 23:59:59.999 Eastern on the Eastern date of `epochMs`, as epoch ms. */
export function easternEndOfDayMs(epochMs: number): number {
  const p = partsOf(epochMs);
  const nextMidnightWall = Date.UTC(p.year, p.month - 1, p.day + 1, 0, 0, 0);
  // The offset at midnight may differ from the one at epochMs on a daylight-saving day: correct once.
  let guess = nextMidnightWall - offsetMs(epochMs);
  guess = nextMidnightWall - offsetMs(guess - 1);
  return guess - 1;
}
