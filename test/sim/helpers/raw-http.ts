// Test helper (not a test): one HTTP/1.1 request as raw bytes over its own TCP connection
// (Connection: close), optionally from a chosen local address (127.0.0.2 is loopback too on
// Linux), so tests can send request targets no HTTP client would and tell source addresses apart.

import { connect } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  status: number;
  body: string;
}

/** Sends `GET <target>` (bytes as given) with `headers`; resolves on close, or after `timeoutMs`. */
export function rawGet(port: number, target: Buffer | string, headers: Record<string, string> = {}, localAddress?: string, timeoutMs = 5_000): Promise<RawAnswer> {
  const head = Object.entries({ Host: '127.0.0.1', Connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const bytes = Buffer.concat([Buffer.from('GET '), typeof target === 'string' ? Buffer.from(target, 'latin1') : target, Buffer.from(` HTTP/1.1\r\n${head}\r\n`)]);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...(localAddress === undefined ? {} : { localAddress }) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {}); // a reset is an answer of its own: status 0
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: match === null ? 0 : Number(match[1]), body: split < 0 ? '' : text.slice(split + 4) });
    });
    socket.write(bytes);
  });
}
