// Goal: a Secret never turns into its text by accident. Method: pass one through every common
// way a value becomes text (JSON, String, template, concatenation, util.inspect, console format)
// and check only reveal() returns the value.

import { format, inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REDACTED, Secret } from '../../src/telemetry/index.ts';

describe('Secret', () => {
  const text = '-----BEGIN PRIVATE KEY-----abc';
  const secret = new Secret(text);

  it('reveals its value only through reveal()', () => {
    expect(secret.reveal()).toBe(text);
    expect(secret.length).toBe(text.length);
  });

  it('prints as [Redacted] everywhere else', () => {
    const holder = { apiKey: secret, list: [secret] };
    const renderings = [
      JSON.stringify(holder),
      String(secret),
      `${secret}`,
      '' + secret,
      inspect(holder, { depth: 5 }),
      format('%s %o %O %j', secret, holder, holder, holder),
    ];
    for (const rendering of renderings) {
      expect(rendering).toContain(REDACTED);
      expect(rendering).not.toContain('BEGIN PRIVATE KEY');
    }
  });
});
