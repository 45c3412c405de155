/**
 * Worker thread of the presigner: signs `timestampMs + METHOD + path` with RSA-PSS SHA-256 (MGF1
 * SHA-256, salt 32), base64, exactly as src/core/request-signing.ts does, so the ~1 ms RSA cost
 * never runs on the trading event loop. Plain JavaScript on purpose: a worker file must load
 * without a TypeScript loader (tsx is not inherited by workers), and this one needs only
 * node:crypto. test/exec/presigner.test.ts verifies its output with verifyRequest.
 *
 * Protocol (one request, one reply, in order):
 *   in : { endpoint: number, id: number, method: string, path: string, timestampMs: number, n: number }
 *   out: { endpoint: number, id: number, timestampMs: number, signatures: string[] }   (n signatures)
 * endpoint >= 0 feeds a ring; endpoint -1 answers a one-off request named by id; endpoint -2 is a
 * batch of different paths (per-order paths): `methods` and `paths` arrays replace method/path/n,
 * and signatures[i] signs (timestampMs, methods[i], paths[i]).
 * Once at start it lowers its own thread's scheduling priority to `workerData.nice` (Linux nice
 * values are per thread; os.setPriority with no pid names the calling thread) and reports
 *   out: { endpoint: -3, nice: number | null, error: string | null }
 * so that, on a machine with fewer free cores than busy threads, waking this thread for ~1 ms of
 * RSA never preempts the trading event loop: measured on 2 cores, a wake-up from postMessage
 * otherwise held the event loop for the whole signature (~0.7 ms).
 * It never chooses timestamps or paths, keeps no state but the key, and never logs the key.
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

parentPort.on('message', (request) => {
  if (request.endpoint === -2) {
    const signatures = new Array(request.paths.length);
    for (let i = 0; i < signatures.length; i++) {
      const message = Buffer.from(`${request.timestampMs}${request.methods[i]}${request.paths[i]}`, 'utf8');
      signatures[i] = sign('sha256', message, options).toString('base64');
    }
    parentPort.postMessage({ endpoint: -2, id: request.id, timestampMs: request.timestampMs, signatures });
    return;
  }
  const message = Buffer.from(`${request.timestampMs}${request.method}${request.path}`, 'utf8');
  const signatures = new Array(request.n);
  for (let i = 0; i < request.n; i++) {
    signatures[i] = sign('sha256', message, options).toString('base64');
  }
  parentPort.postMessage({ endpoint: request.endpoint, id: request.id, timestampMs: request.timestampMs, signatures });
});
