/**
 * The operator's side of the metrics and dashboard rows, run as a child process (as Prometheus and
 * a browser are): scrapes `metricsUrl` once a second and, unless the second argument is "-", holds
 * a dashboard WebSocket open at that URL, reading every pushed view. Prints {"pid":N} once ready;
 * answers each {"cmd":"read"} line on stdin with its counts; exits when stdin closes. The
 * runtime's process then pays only for serving, never for the client.
 */
import { get } from 'node:http';
import { WebSocket } from 'undici';

const metricsUrl = process.argv[2] ?? '';
const dashboardUrl = process.argv[3] ?? '-';
const counts = { scrapes: 0, scrapeFailures: 0, scrapeBytes: 0, views: 0, viewBytes: 0 };

function scrape(): void {
  const request = get(metricsUrl, { timeout: 5_000 }, (response) => {
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    response.on('end', () => {
      if (response.statusCode === 200) {
        counts.scrapes++;
        counts.scrapeBytes += bytes;
      } else counts.scrapeFailures++;
    });
  });
  request.on('timeout', () => request.destroy(new Error('timeout')));
  request.on('error', () => counts.scrapeFailures++);
}

async function main(): Promise<void> {
  if (dashboardUrl !== '-') {
    const ws = new WebSocket(dashboardUrl);
    ws.addEventListener('message', (event) => {
      counts.views++;
      counts.viewBytes += String(event.data).length;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('dashboard WebSocket did not open in 5 s')), 5_000);
      ws.addEventListener('open', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.addEventListener('error', () => reject(new Error('dashboard WebSocket failed')));
    });
  }
  if (metricsUrl !== '') setInterval(scrape, 1_000);
  let input = '';
  process.stdin.on('data', (chunk: Buffer) => {
    input += chunk.toString('utf8');
    for (let newline = input.indexOf('\n'); newline >= 0; newline = input.indexOf('\n')) {
      input = input.slice(newline + 1);
      process.stdout.write(`${JSON.stringify(counts)}\n`);
    }
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ pid: process.pid })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`operator-client: ${(error as Error).message}\n`);
  process.exit(1);
});
