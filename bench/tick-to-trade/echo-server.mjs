// The loopback floor's far end, run as a child process: a node:net server on 127.0.0.1 that, for
// every `requestBytes` it reads, writes `replyBytes` back. Prints {"port":N} when listening and
// exits when its stdin closes (the parent went away). No framing beyond byte counts.
import { createServer } from 'node:net';

const requestBytes = Number(process.argv[2] ?? '512');
const replyBytes = Number(process.argv[3] ?? '256');
const reply = Buffer.alloc(replyBytes, 0x61);

const server = createServer({ noDelay: true }, (socket) => {
  socket.setNoDelay(true);
  let pending = 0;
  socket.on('data', (chunk) => {
    pending += chunk.length;
    while (pending >= requestBytes) {
      pending -= requestBytes;
      socket.write(reply);
    }
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
