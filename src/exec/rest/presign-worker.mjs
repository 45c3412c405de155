/**
 * Worker thread of the presigner: signs `timestampMs + METHOD + path` with RSA-PSS SHA-256 (MGF1
 * SHA-256, salt 32), base64, exactly as src/core/request-signing.ts does, so the ~1 ms RSA cost
 * never runs on the trading event loop. Plain JavaScript on purpose: a worker file must load
 * without a TypeScript loader (tsx is not inherited by workers), and this one needs only
 * node:crypto. test/exec/presigner.test.ts verifies its output with verifyRequest.
 *
 * Protocol (one request, one reply):
 *   in : { endpoint: number, id: number, method: string, path: string, timestampMs: number, n: number, urgent?: boolean, slots?: number[] }
 *   out: { endpoint: number, id: number, timestampMs: number, signatures?: string[], slots?: number[] }
 * endpoint >= 0 feeds a ring: its request names n staging slots of the shared buffer the presigner
 * passed in workerData.staging, and each signature's head bytes (timestamp, the field name between,
 * signature: net's signedFieldsBytes) are written into its slot, the byte count into the shared
 * lengths (-1 when it does not fit); the reply carries `slots` and no `signatures`, so no string
 * crosses to the trading thread. endpoint -1 answers a one-off request named by id; endpoint -2 is a
 * batch of different paths (per-order paths): `methods` and `paths` arrays replace method/path/n,
 * and the signature of (timestampMs, methods[i], paths[i]) goes into slots[i] the same way.
 * Order: four queues, the next signature always from the first that holds work, one signature
 * per turn of this thread's event loop: one-off requests (endpoint -1: a request about to be sent
 * waits on it); ring refills marked `urgent: true` (a ring below half its capacity, drained by a
 * burst); the per-order prefetch (endpoint -2: orders that may be amended or cancelled soon);
 * ring top-ups, which only renew a reserve. (A ring's periodic
 * re-signing, 64 signatures a ring, once held a per-order batch back for up to 240 ms, so amends
 * signed inline; at 5,000 markets the per-order prefetch, ahead of every refill, held the rings
 * empty and batches signed inline.)
 * (A ring's periodic re-signing, 64 signatures a ring, once held a per-order batch back for up to
 * 240 ms, so amends signed inline.) Within each queue, requests are answered in arrival order.
 * Once at start it lowers its own thread's scheduling priority to `workerData.nice` (Linux nice
 * values are per thread; os.setPriority with no pid names the calling thread) and reports
 *   out: { endpoint: -3, nice: number | null, error: string | null }
 * so that, on a machine with fewer free cores than busy threads, waking this thread for ~1 ms of
 * RSA never preempts the trading event loop: measured on 2 cores, a wake-up from postMessage
 * otherwise held the event loop for the whole signature (~0.7 ms).
 * It never chooses timestamps or paths, keeps no state but the key and the requests not yet
 * answered, and never logs the key.
 */

import { constants, sign } from 'node:crypto';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

const key = workerData.key; // a KeyObject, cloned into this thread by worker_threads
if (typeof workerData.nice === 'number') {
  try {
    setPriority(workerData.nice);
    parentPort.postMessage({ endpoint: -3, nice: getPriority(), error: null });
  } catch (error) {
    parentPort.postMessage({ endpoint: -3, nice: null, error: String(error?.message ?? error) });
  }
}
const options = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
const staging = workerData.staging;
const stagingBytes = Buffer.from(staging.bytes);
const stagingLengths = new Int32Array(staging.lengths);

/** A ring's signature into its staging slot as head bytes. */
function writeSlot(slot, timestampMs, signature) {
  const text = `${timestampMs}${staging.field}${signature}`;
  stagingLengths[slot] = text.length <= staging.stride ? stagingBytes.write(text, slot * staging.stride, text.length, 'latin1') : -1;
}

/** One request being answered: its signatures so far. */
function job(request) {
  const count = request.endpoint === -2 ? request.paths.length : request.endpoint === -1 ? 1 : request.n;
  return { request, signatures: new Array(count), next: 0 };
}

const oneOff = []; // someone is about to send with it
const ringLow = []; // refills of a ring running dry
const prefetch = []; // per-order paths of recently acked orders
const bulk = []; // ring top-ups
const queues = [oneOff, ringLow, prefetch, bulk]; // by priority
let scheduled = false;

function signNext() {
  scheduled = false;
  const queue = queues.find((waiting) => waiting.length > 0);
  if (queue === undefined) return;
  const current = queue[0];
  const request = current.request;
  const method = request.endpoint === -2 ? request.methods[current.next] : request.method;
  const path = request.endpoint === -2 ? request.paths[current.next] : request.path;
  const signature = sign('sha256', Buffer.from(`${request.timestampMs}${method}${path}`, 'utf8'), options).toString('base64');
  if (request.slots !== undefined) writeSlot(request.slots[current.next], request.timestampMs, signature);
  else current.signatures[current.next] = signature;
  current.next++;
  if (current.next === current.signatures.length) {
    queue.shift();
    parentPort.postMessage(request.slots !== undefined
      ? { endpoint: request.endpoint, id: request.id, timestampMs: request.timestampMs, slots: request.slots }
      : { endpoint: request.endpoint, id: request.id, timestampMs: request.timestampMs, signatures: current.signatures });
  }
  schedule();
}

function schedule() {
  if (scheduled || queues.every((waiting) => waiting.length === 0)) return;
  scheduled = true;
  setImmediate(signNext); // lets a newly arrived urgent request in before the next signature
}

parentPort.on('message', (request) => {
  const work = job(request);
  if (work.signatures.length === 0) {
    parentPort.postMessage(request.slots !== undefined
      ? { endpoint: request.endpoint, id: request.id, timestampMs: request.timestampMs, slots: request.slots }
      : { endpoint: request.endpoint, id: request.id, timestampMs: request.timestampMs, signatures: [] });
    return;
  }
  (request.endpoint === -1 ? oneOff : request.urgent === true ? ringLow : request.endpoint === -2 ? prefetch : bulk).push(work);
  schedule();
});
