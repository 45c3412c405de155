/**
 * The hash of a ticker's UTF-8 bytes the registry indexes by and the feed's scanners compute while
 * they read a frame (scan-values.ts readTicker runs the same steps inline). FNV-1a's step over
 * little-endian 32-bit words, then the tail bytes, then the length and a final mix: one multiply
 * per 4 bytes on a chain that otherwise costs one per byte.
 */

export const HASH_SEED = 0x811c9dc5 | 0;
export const HASH_PRIME = 0x01000193;

/** The 4 bytes at q as a little-endian int32 (the caller checked q + 4 <= end). */
export function wordAt(b: Uint8Array, q: number): number {
  return b[q] | (b[q + 1] << 8) | (b[q + 2] << 16) | (b[q + 3] << 24);
}

export function hashBytes(b: Uint8Array, start: number, end: number): number {
  let hash = HASH_SEED;
  let q = start;
  for (; q + 4 <= end; q += 4) hash = Math.imul(hash ^ wordAt(b, q), HASH_PRIME);
  for (; q < end; q++) hash = Math.imul(hash ^ b[q], HASH_PRIME);
  return hashFinish(hash, end - start);
}

/**
 * A multiply carries low bits up, never down: the high bits are folded back in (murmur3's final
 * mix), or a table slot (the low bits) would hang on the first byte of each word. Kept a signed
 * int32 (`| 0`): an unsigned result above 2^31 would be a double in V8.
 */
export function hashFinish(hash: number, length: number): number {
  hash ^= length;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) | 0;
}
