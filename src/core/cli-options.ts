/**
 * Command-line options as a table, shared by every entry point (`npm start`, `sim`, `replay`,
 * `bench`, `clearing`, `soak`): one table per command gives the parse, the `--help` text (one line
 * per option) and, for a mistyped option, the nearest valid name by edit distance. Owns scanning
 * only: each entry point converts and checks its values and chooses its exit codes (usage: 2).
 * Pure: never writes to a stream or exits.
 */

export interface CliOption {
  /** `--name`. */
  readonly name: string;
  /** The value's placeholder (`<seconds>`); absent: a flag without a value. */
  readonly value?: string;
  /** One line, shown by --help. */
  readonly help: string;
  /** A short spelling that means the same (`-h`). */
  readonly alias?: string;
}

export interface CliCommand {
  /** First line of --help: `usage: npm start -- [options]`. */
  readonly usage: string;
  readonly options: readonly CliOption[];
  /** Arguments not starting with '-' (a file, a command, suite names); absent: none allowed. */
  readonly positional?: { readonly name: string; readonly help: string; readonly countMax: number; readonly choices?: readonly string[] };
  /** Lines after the options (signals, exit codes), one each. */
  readonly notes?: readonly string[];
}

export interface CliParse {
  /** --help or -h anywhere: the caller prints helpText and exits 0 without reading anything else. */
  readonly help: boolean;
  /** Options given a value, by name; the last occurrence wins. */
  readonly values: ReadonlyMap<string, string>;
  /** Flags given, by name. */
  readonly flags: ReadonlySet<string>;
  readonly positional: readonly string[];
}

export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE' as const;
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

const HELP: CliOption = { name: '--help', alias: '-h', help: 'print these options and exit' };

/**
 * Scans argv against the table; throws CliUsageError naming the nearest option for an unknown one.
 * With --help (or -h) anywhere nothing throws: what parses is returned with `help` set.
 */
export function parseCli(argv: readonly string[], command: CliCommand): CliParse {
  const help = argv.includes(HELP.name) || argv.includes(HELP.alias!);
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === HELP.name || arg === HELP.alias) continue;
    try {
      i = scanOne(argv, i, command, values, flags, positional);
    } catch (error) {
      if (!help) throw error;
    }
  }
  return { help, values, flags, positional };
}

/** Reads the argument at `i` (and its value); returns the index of the last argument it used. */
function scanOne(argv: readonly string[], i: number, command: CliCommand, values: Map<string, string>, flags: Set<string>, positional: string[]): number {
  const arg = argv[i];
  if (!arg.startsWith('-') || arg === '-') {
    acceptPositional(arg, command, positional);
    return i;
  }
  const equals = arg.indexOf('=');
  const name = equals > 0 ? arg.slice(0, equals) : arg;
  const option = command.options.find((candidate) => candidate.name === name || candidate.alias === name);
  if (option === undefined) throw new CliUsageError(unknownMessage('argument', name, [...command.options, HELP].map((o) => o.name)));
  if (option.value === undefined) {
    if (equals > 0) throw new CliUsageError(`${option.name} takes no value`);
    flags.add(option.name);
    return i;
  }
  if (equals > 0) {
    values.set(option.name, arg.slice(equals + 1));
    return i;
  }
  const next = argv[i + 1];
  if (next === undefined || next.startsWith('--')) throw new CliUsageError(`${option.name} needs a value`);
  values.set(option.name, next);
  return i + 1;
}

function acceptPositional(arg: string, command: CliCommand, positional: string[]): void {
  const spec = command.positional;
  if (spec === undefined) throw new CliUsageError(`unexpected argument ${JSON.stringify(arg.slice(0, 60))}`);
  if (spec.choices !== undefined && !spec.choices.includes(arg)) throw new CliUsageError(unknownMessage(spec.name, arg, spec.choices));
  if (positional.length >= spec.countMax) throw new CliUsageError(`at most ${spec.countMax} ${spec.name} argument${spec.countMax === 1 ? '' : 's'}, got ${JSON.stringify(arg.slice(0, 60))} too`);
  positional.push(arg);
}

/** `unknown argument "--durtion"; did you mean --duration?` (the hint only when one is near). */
export function unknownMessage(kind: string, given: string, known: readonly string[]): string {
  const nearest = nearestName(given, known);
  const shown = JSON.stringify(given.slice(0, 60));
  return nearest === null ? `unknown ${kind} ${shown}; valid: ${known.join(', ')}` : `unknown ${kind} ${shown}; did you mean ${nearest}?`;
}

/**
 * The known name closest to `given` by edit distance, or null when none is plausibly meant:
 * within a third of the longer name's length (at least 2), so `--durtion` finds `--duration`
 * while `--bogus` finds nothing. Ties go to the first in table order.
 */
export function nearestName(given: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.MAX_SAFE_INTEGER;
  for (const name of known) {
    const distance = editDistance(given, name);
    const limit = Math.max(2, Math.floor(Math.max(given.length, name.length) / 3));
    if (distance <= limit && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance (insert, delete, substitute each cost 1); two rows, O(|a|·|b|). */
export function editDistance(a: string, b: string): number {
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      current[j] = Math.min(substitute, previous[j] + 1, current[j - 1] + 1);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/** The --help text: the usage line, then one line per positional and option, then the notes. */
export function helpText(command: CliCommand): string {
  const rows: [string, string][] = [];
  if (command.positional !== undefined) rows.push([command.positional.name, command.positional.help]);
  for (const option of [...command.options, HELP]) {
    const left = `${option.alias === undefined ? '' : `${option.alias}, `}${option.name}${option.value === undefined ? '' : ` ${option.value}`}`;
    rows.push([left, option.help]);
  }
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = [command.usage, '', ...rows.map(([left, help]) => `  ${left.padEnd(width)}  ${help}`)];
  if (command.notes !== undefined && command.notes.length > 0) lines.push('', ...command.notes);
  return lines.join('\n');
}
