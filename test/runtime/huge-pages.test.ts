// Goal: the main job and the benches read the kernel's transparent huge page mode right, and the
// operator is told how to change it only when V8's heap gets no huge pages.
// Method: the parser on the kernel's three texts, the reader on files written here and on a
// missing one; the hint for each mode.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hugePageHint, parseHugePageMode, transparentHugePageMode } from '../../src/runtime/huge-pages.ts';

describe('transparent huge page mode', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-thp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the bracketed mode of the kernel text', () => {
    expect(parseHugePageMode('[always] madvise never\n')).toBe('always');
    expect(parseHugePageMode('always [madvise] never\n')).toBe('madvise');
    expect(parseHugePageMode('always madvise [never]\n')).toBe('never');
    expect(parseHugePageMode('always madvise never\n')).toBeNull();
  });

  it('reads a file, and gives null for one that is not there', () => {
    const file = path.join(dir, 'enabled');
    writeFileSync(file, 'always [madvise] never\n');
    expect(transparentHugePageMode(file)).toBe('madvise');
    expect(transparentHugePageMode(path.join(dir, 'missing'))).toBeNull();
  });

  it('hints only when the heap gets no huge pages', () => {
    expect(hugePageHint('always')).toBeNull();
    expect(hugePageHint(null)).toBeNull();
    for (const mode of ['madvise', 'never']) {
      const hint = hugePageHint(mode);
      expect(hint).toContain(`transparent huge pages: ${mode}`);
      expect(hint).toContain('echo always > /sys/kernel/mm/transparent_hugepage/enabled');
    }
  });
});
