// Telemetry's public surface: the logger (with secret redaction), latency histograms, monotonic
// nanosecond clock, counters by code, and the Secret wrapper. Other folders import only this file.

export { createLogger, resolvePretty, isLogLevel, LOG_LEVELS } from './logger.ts';
export type { Logger, LoggerOptions, LogLevel } from './logger.ts';
export { LatencyRecorder } from './latency-recorder.ts';
export type { LatencySummary, LatencyRecorderOptions } from './latency-recorder.ts';
export { nowNs } from './clock.ts';
export { EventLoopDelay } from './event-loop-delay.ts';
export type { EventLoopDelaySummary } from './event-loop-delay.ts';
export { Counters } from './counters.ts';
export type { CounterSnapshot } from './counters.ts';
export { Secret, REDACTED } from './secret.ts';
export { REDACT_PATHS, SECRET_FIELD_NAMES, SECRET_HEADER_NAMES } from './redaction.ts';
export { TelemetryError } from './telemetry-error.ts';
export type { TelemetryErrorCode } from './telemetry-error.ts';
export { MetricsServer } from './metrics-server.ts';
export type { MetricsServerOptions } from './metrics-server.ts';
export { HdrHistogramMetric, LATENCY_BOUNDS_SECONDS, registerHdrHistogram } from './hdr-histogram-metric.ts';
export type { HdrHistogramMetricOptions } from './hdr-histogram-metric.ts';
