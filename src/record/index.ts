/**
 * The record folder's public surface: the recording format (constants, kinds, coded errors), the
 * recorder the runtime opens when config record.enabled, the order tap it puts between router and
 * route, and the reader replay and tests use. Other folders import recording only through here.
 */

export {
  FILE_HEADER_BYTES, FILE_MAGIC, FORMAT_VERSION, RECORD_BODY_MAX, RECORD_HEADER_BYTES, RECORD_MARKER, RECORDING_ERROR_CODES,
  RecordKind, RecordingError, recordKindName, type RecordingErrorCode,
} from './format.ts';
export { Recorder, recordingFileName, type RecorderOptions, type RecorderStats } from './recorder.ts';
export { RecordingOrderEntry, createOrderText } from './recording-order-entry.ts';
export {
  readRecording, readRecordingFile, recordText, parseMarketRecord, recordedMarkets, type Recording, type RecordedMarket,
} from './recording-reader.ts';
export { marketRecordText } from './market-record.ts';
export {
  recordBudget, recordingGroupVenue, sessionFacts, type BudgetFact, type GroupVenue, type OrderGroupFact, type SessionFacts,
} from './session-facts.ts';
