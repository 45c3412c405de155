/**
 * The signed Logon of fix.md §2: SenderCompID is the API key id and RawData(96) carries a base64
 * RSA-PSS signature (SHA-256, MGF1 SHA-256, salt 32) of
 *   SendingTime(52) SOH MsgType(35)="A" SOH MsgSeqNum(34) SOH SenderCompID(49) SOH TargetCompID(56)
 * with no trailing SOH. It is the same key pair and algorithm as REST signing (core/request-signing),
 * only the signed string differs. Signing costs about 1 ms; it happens once per logon.
 */

import { constants, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const PSS_OPTIONS = Object.freeze({
  padding: constants.RSA_PKCS1_PSS_PADDING,
  saltLength: constants.RSA_PSS_SALTLEN_DIGEST, // 32 bytes for SHA-256
});

/** The pre-hash string; `sendingTime` must be byte-identical to tag 52 of the same Logon. */
export function logonSignatureText(sendingTime: string, msgSeqNum: string, senderCompId: string, targetCompId: string): string {
  return `${sendingTime}\x01A\x01${msgSeqNum}\x01${senderCompId}\x01${targetCompId}`;
}

/** Base64 (with padding) RSA-PSS signature: 344 characters for a 2048-bit key. */
export function signLogon(privateKey: KeyObject, sendingTime: string, msgSeqNum: string, senderCompId: string, targetCompId: string): string {
  const text = logonSignatureText(sendingTime, msgSeqNum, senderCompId, targetCompId);
  return sign('sha256', Buffer.from(text, 'utf8'), { key: privateKey, ...PSS_OPTIONS }).toString('base64');
}

/** True when `signatureBase64` signs the pre-hash; false for any malformed input, never a throw. */
export function verifyLogon(publicKey: KeyObject, sendingTime: string, msgSeqNum: string, senderCompId: string,
  targetCompId: string, signatureBase64: string): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length === 0) return false;
  try {
    const key = publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey;
    const text = logonSignatureText(sendingTime, msgSeqNum, senderCompId, targetCompId);
    return verify('sha256', Buffer.from(text, 'utf8'), { key, ...PSS_OPTIONS }, signature);
  } catch {
    return false; // wrong length, wrong key type: a failed verification, not a crash
  }
}
