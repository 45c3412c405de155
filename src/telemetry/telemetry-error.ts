// Errors raised by telemetry set-up (never by recording, which cannot fail). Each carries a stable
// code that callers and tests match on.

export type TelemetryErrorCode = 'TELEMETRY_LEVEL_INVALID' | 'TELEMETRY_RANGE_INVALID';

export class TelemetryError extends Error {
  readonly code: TelemetryErrorCode;

  constructor(code: TelemetryErrorCode, message: string) {
    super(message);
    this.name = 'TelemetryError';
    this.code = code;
  }
}
