// Prometheus stays per runtime: every sample carries a `runtime` label (several runtimes of one
// account, a fleet, scraped into one Prometheus stay apart), help and type lines untouched.
import { describe, expect, it } from 'vitest';
import { withRuntimeLabel } from '../../src/runtime/runtime-metrics.ts';

describe('metrics: the runtime label', () => {
  it('goes first on samples with labels, alone on samples without, never on comments', () => {
    const text = [
      '# HELP trading_orders_sent_total Orders sent.',
      '# TYPE trading_orders_sent_total counter',
      'trading_orders_sent_total 12',
      'trading_hop_latency_seconds_bucket{hop="exec",le="+Inf"} 3',
      '',
    ].join('\n');
    expect(withRuntimeLabel(text, 'mm-"a"')).toBe([
      '# HELP trading_orders_sent_total Orders sent.',
      '# TYPE trading_orders_sent_total counter',
      'trading_orders_sent_total{runtime="mm-\\"a\\""} 12',
      'trading_hop_latency_seconds_bucket{runtime="mm-\\"a\\"",hop="exec",le="+Inf"} 3',
      '',
    ].join('\n'));
  });
});
