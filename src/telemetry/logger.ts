// The process logger: pino writing one JSON object per line, or pino-pretty's human format when
// stdout is a terminal or the caller asks. Secrets are censored by field name (redaction.ts) before
// anything is written. Owns logger construction only; it never decides what to log, and it never
// logs from the hot path on its own (callers log off the frame-to-order path).

import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';
import { REDACT_PATHS } from './redaction.ts';
import { REDACTED } from './secret.ts';
import { TelemetryError } from './telemetry-error.ts';

export type Logger = PinoLogger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  /** Minimum level written; default "info". */
  level?: string;
  /** true: pino-pretty; false: JSON lines; "auto" or absent: pretty only when writing to a TTY stdout. */
  pretty?: boolean | 'auto';
  /** Logger name, written as `name` on every line. */
  name?: string;
  /** Where lines go; default stdout (fd 1, asynchronous sonic-boom). */
  destination?: NodeJS.WritableStream;
}

export function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

/** True when output should be pretty: asked for, or "auto" and stdout (the default destination) is a TTY. */
export function resolvePretty(pretty: boolean | 'auto' | undefined, destination: NodeJS.WritableStream | undefined): boolean {
  if (pretty === true || pretty === false) return pretty;
  return destination === undefined && process.stdout.isTTY === true;
}

/**
 * Create the process's root logger. Call it once and hand components `logger.child({ component })`:
 * each call opens its own stdout writer, and two writers on one fd can interleave long lines.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!isLogLevel(level)) {
    throw new TelemetryError('TELEMETRY_LEVEL_INVALID', `unknown log level "${level}", expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const pretty = resolvePretty(options.pretty, options.destination);
  const pinoOptions = {
    level,
    ...(options.name === undefined ? {} : { name: options.name }),
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    // Level as its label ("info"), which dashboards and grep read without a lookup table.
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return pino(pinoOptions, destinationStream(pretty, options.destination));
}

function destinationStream(pretty: boolean, destination: NodeJS.WritableStream | undefined): DestinationStream {
  if (pretty) {
    // In-process pretty printing (no transport worker): it is for people at a terminal, where
    // readable output in order matters more than throughput.
    return pinoPretty({
      destination: destination ?? 1,
      sync: true,
      colorize: destination === undefined && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    });
  }
  if (destination !== undefined) return destination as DestinationStream;
  // Asynchronous writes so a log line never blocks the event loop on a slow terminal or pipe;
  // pino flushes this destination on process exit.
  return pino.destination({ dest: 1, sync: false });
}
