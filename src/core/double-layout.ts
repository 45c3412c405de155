/**
 * Zero as a heap number, the first value of a number field that will hold numbers decoded from
 * the wire (fill counts, fees, positions, prices of acks): V8 lays such a field out as a double
 * from the start. A Float64Array element read by unoptimized code is a heap number even when
 * integral; this one is read once, at module load. Its value is +0, the same as 0 to every
 * comparison (Object.is included).
 *
 * Why. V8 gives a field first set to a small integer the small-integer layout. The session's
 * first fill runs in unoptimized code, which stores the decoded numbers as heap numbers: the
 * field changes layout, V8 deprecates the record's hidden class, and every optimized function
 * that touches such a record deoptimizes ("wrong map"). In the main job that was 62 functions of
 * the order path (OMS, gate, route) at its first fill, ~7 s in (node --trace-deopt and
 * --trace-migration), re-optimized only seconds later at a market maker's pace. The keep-warm
 * dry run settles the other fields' layouts before trading; it never fills.
 */
export const DOUBLE_ZERO: number = new Float64Array(1)[0]!;
