/**
 * The kernel's transparent huge page mode, read once at start. Under `always` V8's heap sits on
 * 2 MB pages; under `madvise` (Debian's and Ubuntu's default) it gets none, since V8 does not
 * madvise its heap. On this project's VM the live order path's cold reads took 13% less time with
 * `always` (README, "On a machine with isolated cores"), so the main job says which mode it runs
 * under and how to change it; bench results record it too (bench/run.ts). Reads a file, decides
 * nothing.
 */

import { readFileSync } from 'node:fs';

export const THP_ENABLED_PATH = '/sys/kernel/mm/transparent_hugepage/enabled';

/** The bracketed mode of the kernel's THP setting text ("always [madvise] never" -> 'madvise'), or null. */
export function parseHugePageMode(text: string): string | null {
  return /\[(\w+)\]/.exec(text)?.[1] ?? null;
}

/** This machine's THP mode, or null (not Linux, no THP, unreadable). */
export function transparentHugePageMode(path: string = THP_ENABLED_PATH): string | null {
  try {
    return parseHugePageMode(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/** A line for the operator when the mode leaves V8's heap on 4 KB pages; null under `always` or when unknown. */
export function hugePageHint(mode: string | null): string | null {
  if (mode === null || mode === 'always') return null;
  return `transparent huge pages: ${mode}, so V8's heap gets none; for the lowest live latency set them to always `
    + `(echo always > ${THP_ENABLED_PATH}, as root; README: "On a machine with isolated cores")`;
}
