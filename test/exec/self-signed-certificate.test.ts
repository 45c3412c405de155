/**
 * Goal: the TLS tests' certificate helper makes certificates OpenSSL accepts whatever its random
 * serial: a serial starting with a zero byte (1 draw in 256) was encoded with a redundant leading
 * zero, which OpenSSL refuses ("illegal padding"), failing a TLS test now and then.
 * Method: the DER INTEGER encoder on edge cases; certificates with such serials parsed by node:crypto.
 */

import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { integer, selfSignedCertificate } from './self-signed-certificate.ts';

describe('selfSignedCertificate', () => {
  it('encodes integers minimally: no redundant leading zero, a zero before a set top bit', () => {
    expect(integer(Buffer.from([0x00, 0x12]))).toEqual(Buffer.from([0x02, 0x01, 0x12]));
    expect(integer(Buffer.from([0x00, 0x00, 0x80]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x80]));
    expect(integer(Buffer.from([0x80]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x80]));
    expect(integer(Buffer.from([0x00]))).toEqual(Buffer.from([0x02, 0x01, 0x00]));
  });

  it('makes a certificate that parses with a serial starting with a zero byte, or with a set top bit', () => {
    for (const serial of [Buffer.from('00112233445566778899aabb', 'hex'), Buffer.from('ff112233445566778899aabb', 'hex')]) {
      const certificate = new X509Certificate(selfSignedCertificate(serial).cert);
      expect(certificate.serialNumber.replace(/^0+/, '')).toBe(serial.toString('hex').toUpperCase().replace(/^0+/, ''));
      expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    }
  });
});
