/**
 * Bench-only piscina task: the same RSA-PSS signing as src/exec/rest/presign-worker.mjs, so the
 * signing suite can compare a piscina pool with the plain worker_threads Worker the presigner
 * uses. Task: { method, path, timestampMs, n } -> string[] of n base64 signatures.
 */

import { constants, sign } from 'node:crypto';
import { workerData } from 'piscina';

const options = { key: workerData.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };

export default function signBatch(task) {
  const message = Buffer.from(`${task.timestampMs}${task.method}${task.path}`, 'utf8');
  const signatures = new Array(task.n);
  for (let i = 0; i < task.n; i++) signatures[i] = sign('sha256', message, options).toString('base64');
  return signatures;
}
