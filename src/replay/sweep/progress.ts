/**
 * A sweep's progress: a cli-progress bar with ETA on a terminal, plain lines otherwise (CI logs,
 * pipes): one at every 10% and at the end, so a log of a long sweep stays short. Writes to the
 * given stream (stderr), never to stdout, which carries the results summary.
 */

import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number, failed: number): void;
  stop(): void;
}

export function createProgress(total: number, stream: NodeJS.WriteStream = process.stderr, label = 'sweep'): Progress {
  if (stream.isTTY === true) {
    const bar = new cliProgress.SingleBar({
      stream,
      format: `${label} [{bar}] {value}/{total} runs | {percentage}% | ETA {eta_formatted} | failed {failed}`,
      etaBuffer: 20,
      hideCursor: true,
    }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { failed: 0 });
    return {
      update: (done, _total, failed) => bar.update(done, { failed }),
      stop: () => bar.stop(),
    };
  }
  const startMs = Date.now();
  let lastTenth = -1;
  return {
    update(done, all, failed) {
      const tenth = Math.floor((done * 10) / all);
      if (tenth === lastTenth && done !== all) return;
      lastTenth = tenth;
      const elapsedS = (Date.now() - startMs) / 1000;
      const etaS = done === 0 ? 0 : Math.round((elapsedS * (all - done)) / done);
      stream.write(`${label}: ${done}/${all} runs done, ${failed} failed, ${elapsedS.toFixed(1)} s elapsed, ETA ${etaS} s\n`);
    },
    stop() {},
  };
}
