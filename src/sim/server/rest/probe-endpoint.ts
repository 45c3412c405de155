/**
 * The simulator-only HTTP paths of the wire-to-wire probe, outside /trade-api (they do not exist
 * on the exchange): GET /_sim/probe answers the summary JSON (probe.ts ProbeSummary, times in ns);
 * POST /_sim/probe/reset answers the summary taken just before clearing it, so a reader can
 * read-and-reset in one call. Unsigned, never rate limited. With the probe off both are 404
 * `not_found` saying how to switch it on. This file only maps a path to a reply.
 */

import { PROBE_PATH, PROBE_RESET_PATH, type WireProbe } from '../probe.ts';
import { jsonReply, nestedError, type RestReply } from './reply.ts';

/** Every simulator-only path starts with this. */
export const SIM_PATH_PREFIX = '/_sim/';

export function probeEndpointReply(probe: WireProbe | null, method: string, rawPath: string): RestReply {
  if (rawPath !== PROBE_PATH && rawPath !== PROBE_RESET_PATH) return nestedError(404, 'not_found', `no route for ${method} ${rawPath.length <= 256 ? rawPath : `a path of ${rawPath.length} characters`}`);
  if (probe === null) return nestedError(404, 'not_found', 'the wire-to-wire probe is off (start the simulator with --probe or startSim({ probe: true }))');
  if (rawPath === PROBE_PATH) {
    if (method !== 'GET') return nestedError(405, 'method_not_allowed', `method ${method} is not allowed on ${rawPath}`);
    return jsonReply(200, probe.summary());
  }
  if (method !== 'POST') return nestedError(405, 'method_not_allowed', `method ${method} is not allowed on ${rawPath}`);
  const summary = probe.summary();
  probe.reset();
  return jsonReply(200, summary);
}
