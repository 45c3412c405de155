// Event counts by code (risk deny codes, exec error codes, feed resyncs) for status lines and
// metrics. Small-integer codes (the `Deny` table) index a plain array; string codes use a Map.
// Neither path allocates once a code has been seen. Owns counts only; never logs or exports.

export type CounterSnapshot = Record<string, number>;

export class Counters {
  readonly name: string;
  readonly #labels: readonly string[];
  readonly #byIndex: number[] = [];
  readonly #byName = new Map<string, number>();
  #total = 0;

  /**
   * @param labels names of integer codes, index = code (e.g. deny code 4 -> labels[4]); codes
   *   without a label appear in snapshots under their decimal value.
   */
  constructor(name: string, labels: readonly string[] = []) {
    this.name = name;
    this.#labels = labels;
    // Pre-size the array for labelled codes so the common increments never grow it.
    for (let i = 0; i < labels.length; i++) this.#byIndex.push(0);
  }

  /** Add `by` (default 1) to a code: a non-negative integer (array slot) or a string. */
  increment(code: number | string, by = 1): void {
    this.#total += by;
    if (typeof code === 'number') {
      const slots = this.#byIndex;
      while (slots.length <= code) slots.push(0);
      slots[code] += by;
      return;
    }
    this.#byName.set(code, (this.#byName.get(code) ?? 0) + by);
  }

  get(code: number | string): number {
    if (typeof code === 'number') return this.#byIndex[code] ?? 0;
    return this.#byName.get(code) ?? 0;
  }

  /** Sum of every increment since construction or the last reset. */
  get total(): number {
    return this.#total;
  }

  /** A fresh object of the non-zero counts, keys sorted; integer codes under their label. */
  snapshot(): CounterSnapshot {
    const entries: [string, number][] = [];
    const slots = this.#byIndex;
    for (let code = 0; code < slots.length; code++) {
      if (slots[code] !== 0) entries.push([this.#labels[code] ?? String(code), slots[code]]);
    }
    for (const [code, count] of this.#byName) if (count !== 0) entries.push([code, count]);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const out: CounterSnapshot = {};
    for (const [code, count] of entries) out[code] = (out[code] ?? 0) + count;
    return out;
  }

  reset(): void {
    this.#byIndex.fill(0);
    // Zero rather than clear, so codes already seen still never allocate a Map entry.
    for (const code of this.#byName.keys()) this.#byName.set(code, 0);
    this.#total = 0;
  }
}
