/**
 * SIGINT, SIGTERM and SIGHUP during a run. The first one stops the run the orderly way: no more rows
 * pulled, requests in flight aborted, what is complete committed, the checkpoint kept, the summary
 * written. That takes well under a second; should it not have ended the process within `graceMs`
 * (or should a second signal come), the process exits at once with status 1, as a supervisor's
 * kill -9 would, except that the lock is still removed (see run/lock.ts) and the reason printed.
 *
 * With `drainMs`, the first signal lets the requests in flight come back for up to that long
 * before they are aborted (the engine's StopDrain): they were paid for, and a resumed run would
 * pay for them again. A second signal ends that wait, a third exits at once.
 */
import type { StopDrain } from '../engine/engine.js';
import { UsageError } from '../errors.js';
import { holdSignals } from './_early-signals.js';

export interface SignalOptions {
  /** How long the orderly stop may take before the process exits. @default 10_000 */
  readonly graceMs?: number;
  /** @default process.exit */
  readonly exit?: (code: number) => void;
  /** @default writes to standard error */
  readonly write?: (text: string) => void;
  /** How long the first signal lets the requests in flight come back. @default 0: aborted at once */
  readonly drainMs?: number;
  /** What an exit at once leaves behind, said as it exits. @default a run's checkpoint */
  readonly leaves?: string;
}

export interface SignalStop {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** With `drainMs`: the wait for the requests in flight, cut by the second signal. */
  readonly drain?: StopDrain;
  /** Stops listening (the run is over). */
  dispose(): void;
}

/**
 * SIGHUP too: a closed terminal or a dropped SSH session killed the run with no summary and its
 * lock files left, and a worker with its chunks in hand. The same three as _early-signals.ts
 * listens for, so that none of them ends a command with Node's default at any moment.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function stopOnSignals(options: SignalOptions = {}): SignalStop {
  const graceMs = options.graceMs ?? 10_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const drainMs = options.drainMs ?? 0;
  // A run stopped before its first checkpoint has none: "the last checkpoint is kept" promised one.
  const leaves = options.leaves ?? 'the last checkpoint written, if any, is kept for --resume';
  const controller = new AbortController();
  const cut = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const quit = (why: string) => {
    write(`geobatch: ${why}: exiting now; ${leaves}\n`);
    exit(1);
  };
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      if (drainMs === 0 || cut.signal.aborted) return quit(`${name} again`);
      write(`geobatch: ${name} again: dropping the requests in flight (${name} once more quits at once)\n`);
      cut.abort();
      return;
    }
    write(
      drainMs === 0
        ? `\ngeobatch: ${name}: stopping: the rows done are kept, requests in flight dropped (${name} again quits at once)\n`
        : `\ngeobatch: ${name}: stopping: no more rows read; any requests in flight get up to ${seconds(drainMs)} to come back, the rows done are kept (${name} again drops the requests in flight)\n`,
    );
    controller.abort(new UsageError(`stopped by ${name}`));
    const within = drainMs + graceMs;
    timer = setTimeout(() => quit(`the run did not stop within ${seconds(within)} of ${name}`), within);
    // The timer only guards a stop that hangs; it must not keep a finished process alive.
    timer.unref();
  };
  const letGo = holdSignals();
  for (const name of SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    ...(drainMs === 0 ? {} : { drain: { ms: drainMs, cut: cut.signal } }),
    dispose() {
      clearTimeout(timer);
      for (const name of SIGNALS) process.off(name, onSignal);
      letGo();
    },
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
