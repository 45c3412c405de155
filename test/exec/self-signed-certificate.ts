/**
 * Test helper: a fresh self-signed X.509 certificate for 127.0.0.1 / localhost, made in memory with
 * node:crypto (an RSA key and a minimal DER encoder), so TLS tests need neither openssl nor key
 * material in the repository (*.pem is ignored on purpose). Valid 2020-2049, serial random,
 * sha256WithRSAEncryption, extensions: basicConstraints CA (it is its own trust anchor) and
 * subjectAltName IP 127.0.0.1, DNS localhost. Never used outside tests.
 */

import { createSign, generateKeyPairSync, randomBytes } from 'node:crypto';

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => tlv(0xa0 | n, ...parts);

function oid(text: string): Buffer {
  const [first, second, ...rest] = text.split('.').map(Number) as [number, number, ...number[]];
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A non-negative DER INTEGER: minimal, as DER requires (OpenSSL refuses a redundant leading zero: "illegal padding"). */
export function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  return tlv(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));

export interface TestCertificate {
  key: string; // PKCS#8 PEM private key
  cert: string; // PEM certificate
}

/** `serial`: the serial number's bytes (default 12 random bytes). */
export function selfSignedCertificate(serial: Buffer = randomBytes(12)): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from('127.0.0.1')))));
  const validity = sequence(tlv(0x17, Buffer.from('200101000000Z')), tlv(0x17, Buffer.from('491231235959Z')));
  const basicConstraints = sequence(oid('2.5.29.19'), tlv(0x04, sequence(Buffer.from([0x01, 0x01, 0xff]))));
  const altNames = sequence(tlv(0x87, Buffer.from([127, 0, 0, 1])), tlv(0x82, Buffer.from('localhost')));
  const subjectAltName = sequence(oid('2.5.29.17'), tlv(0x04, altNames));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    SHA256_WITH_RSA,
    name,
    validity,
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(basicConstraints, subjectAltName)),
  );
  const signature = createSign('sha256').update(tbs).sign(privateKey);
  const der = sequence(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.from([0]), signature));
  const lines = der.toString('base64').match(/.{1,64}/g)!.join('\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`,
  };
}
