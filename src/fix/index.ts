/**
 * The FIX folder's public surface: the venue's FIXT.1.1 dialect (shared/spec/fix.md) as a
 * standalone library used by the runtime's FIX order entry and the simulator's acceptor. It imports
 * only core; it never knows about orders, risk or the simulator's matching.
 */

export {
  Tag, MsgType, SessionRejectReason, BusinessRejectReason, SessionName, SESSION_KINDS, SESSION_NAME_ALIASES,
  BEGIN_STRING, DEFAULT_APPL_VER_ID, isAdminMsgType, sessionKindOf,
} from './tags.ts';
export type { SessionKind } from './tags.ts';
export { FixError, FIX_ERROR_CODES } from './fix-error.ts';
export type { FixErrorCode, FixErrorAction } from './fix-error.ts';
export { INT_INVALID, formatUtcTimestamp } from './field-codec.ts';
export { FixEncoder } from './encoder.ts';
export type { FixEncoderOptions } from './encoder.ts';
export { FixMessage, FixGroup, REJECT_NONE } from './message.ts';
export { FixFramer, parseMessage } from './parser.ts';
export type { FixFramerHandler, FixParserOptions } from './parser.ts';
export { logonSignatureText, signLogon, verifyLogon } from './logon-signature.ts';
export { MemorySequenceStore, FileSequenceStore } from './sequence-store.ts';
export type { SequenceStore, SequenceStoreOptions } from './sequence-store.ts';
export { ActiveSessionRegistry } from './session-registry.ts';
export type { FixSessionRegistry } from './session-registry.ts';
export { FixSession } from './session.ts';
export type {
  FixApplication, FixAcceptorOptions, FixInitiatorOptions, FixSessionEvent, FixSessionEventType, FixSessionOptions,
  FixSessionState, FixTransport,
} from './session.ts';
export { FIX_WRITE_CHANNEL, FIX_WRITE_START_CHANNEL, dialSession, linkSocket } from './socket-link.ts';
export type { DialHooks, DialOptions, SocketLinkOptions } from './socket-link.ts';
export { FixLink, FixLinkError } from './fix-link.ts';
export type { FixLinkHooks, FixLinkOptions } from './fix-link.ts';
