/**
 * Goal: the tick-to-trade probe times only the first order of a book frame, records every hop
 * once, and ignores intents outside a frame or without an exec call (a deny).
 * Method: drive the probe's stamps in order with a hand-made frame record; read the histograms.
 */

import { describe, expect, it } from 'vitest';
import { nowNs } from '../../src/telemetry/index.ts';
import { HOP_NAMES, TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';

describe('TickToTradeProbe', () => {
  it('records each hop once for the first order of a frame', () => {
    const probe = new TickToTradeProbe();
    const t = nowNs();
    const frame = { receivedNs: t - 3_000, decodedNs: t - 2_000, appliedNs: t - 1_000 };
    probe.beginFrame(frame);
    probe.onIntent();
    probe.onVerdict();
    probe.onExecCall();
    const callNs = nowNs();
    probe.onWriteStart();
    probe.onWriteReturn();
    probe.onWriteStart(); // a second write of the same call (a cancel's batch after the create) is not timed
    probe.onExecReturn();
    // A second order in the same frame is not timed.
    probe.onIntent();
    probe.onVerdict();
    probe.onExecCall();
    probe.onWriteStart();
    probe.onWriteReturn();
    probe.onExecReturn();
    probe.endFrame();
    for (const name of HOP_NAMES) expect(probe.recorder(name).count).toBe(1);
    expect(probe.decode.summary().max).toBeGreaterThanOrEqual(999);
    expect(probe.total.summary().min).toBeGreaterThanOrEqual(3_000);
    // The first byte is handed over after the exec call and before the exec returns.
    expect(probe.firstByte.summary().min).toBeGreaterThanOrEqual(3_000);
    expect(probe.firstByte.summary().max).toBeLessThanOrEqual(probe.total.summary().max);
    expect(probe.encode.summary().max).toBeLessThanOrEqual(nowNs() - callNs + 1_000_000);
    expect(probe.frames).toBe(1);
    expect(probe.framesWithOrder).toBe(1);
  });

  it('records no write hops when the timed call did not write (its request goes out later)', () => {
    const probe = new TickToTradeProbe();
    const t = nowNs();
    probe.beginFrame({ receivedNs: t, decodedNs: t, appliedNs: t });
    probe.onWriteStart(); // a write before the order's call (another request): not the order's
    probe.onIntent();
    probe.onVerdict();
    probe.onExecCall();
    probe.onExecReturn(); // waiting for its signature: nothing written inside the call
    probe.onWriteStart(); // written later in the frame: not inside the timed call
    probe.onWriteReturn();
    probe.endFrame();
    expect(probe.exec.count).toBe(1);
    expect(probe.total.count).toBe(1);
    expect(probe.encode.count).toBe(0);
    expect(probe.write.count).toBe(0);
    expect(probe.firstByte.count).toBe(0);
  });

  it('records nothing for a denied intent or outside a frame', () => {
    const probe = new TickToTradeProbe();
    probe.onIntent();
    probe.onVerdict();
    probe.onExecCall();
    probe.onExecReturn();
    const t = nowNs();
    probe.beginFrame({ receivedNs: t, decodedNs: t, appliedNs: t });
    probe.onIntent();
    probe.onVerdict(); // denied: exec is never called
    probe.endFrame();
    for (const name of HOP_NAMES) expect(probe.recorder(name).count).toBe(0);
    expect(probe.frames).toBe(1);
    expect(probe.framesWithOrder).toBe(0);
  });
});
