/**
 * The logger the feed writes to: the four pino methods it uses, so a pino Logger (src/telemetry
 * createLogger) or a test double fits. The feed logs only off the hot path (malformed frames,
 * resyncs, reconnects) and never builds log objects for frames that decode cleanly.
 */

export interface FeedLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

function ignore(): void {}

/** Discards everything: the default when no logger is passed. */
export const silentLogger: FeedLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
