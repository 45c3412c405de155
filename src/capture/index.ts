/**
 * Capture: the live feed with nothing after it but a recorder, for thousands of markets without
 * trading (docs/capture-and-catalog.md). A tool above record/ and the feed, like replay; nothing
 * below the runtime imports it. Entry point: main.ts (`npm run capture`).
 */

export { Capture, type CaptureOptions } from './capture.ts';
export { CaptureQuality, qualityLine, type QualityReport } from './capture-quality.ts';
