/**
 * Test helper for exec tests: ExecListeners that record every callback as [name, ...args], one
 * without the optional amend/decrease "unknown" callbacks (to test the status-0 reject fallback)
 * and one with them, plus a bounded wait for an operation's first outcome.
 */
import type { ExecListener } from '../../src/oms/index.ts';


export type Event = [string, ...unknown[]];

export class RecordingListener implements ExecListener {
  readonly events: Event[] = [];
  onCreateAck(...args: unknown[]): void { this.events.push(['createAck', ...args]); }
  onCreateReject(...args: unknown[]): void { this.events.push(['createReject', ...args]); }
  onCreateUnknown(...args: unknown[]): void { this.events.push(['createUnknown', ...args]); }
  onCancelAck(...args: unknown[]): void { this.events.push(['cancelAck', ...args]); }
  onCancelReject(...args: unknown[]): void { this.events.push(['cancelReject', ...args]); }
  onCancelUnknown(...args: unknown[]): void { this.events.push(['cancelUnknown', ...args]); }
  onAmendAck(...args: unknown[]): void { this.events.push(['amendAck', ...args]); }
  onAmendReject(...args: unknown[]): void { this.events.push(['amendReject', ...args]); }
  onDecreaseAck(...args: unknown[]): void { this.events.push(['decreaseAck', ...args]); }
  onDecreaseReject(...args: unknown[]): void { this.events.push(['decreaseReject', ...args]); }

  /** Waits (bounded) for the first outcome (ack, reject or unknown) of `operation` about `id` (a create's: its id text or handle). */
  async outcome(operation: 'create' | 'cancel' | 'amend' | 'decrease', id: string | number): Promise<Event> {
    for (let i = 0; i < 2_000; i++) { // up to ~10 s: generous for a loaded CI machine
      const found = this.events.find((event) => event[1] === id && event[0].startsWith(operation));
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no ${operation} outcome for ${id}`);
  }
}

export class ListenerWithUnknowns extends RecordingListener {
  onAmendUnknown(...args: unknown[]): void { this.events.push(['amendUnknown', ...args]); }
  onDecreaseUnknown(...args: unknown[]): void { this.events.push(['decreaseUnknown', ...args]); }
}
