/**
 * A signal before a command listens for its own. Loading the modules takes a few tenths of a
 * second, and a Ctrl-C then ended the process with Node's default (status 130, not a word). From
 * the entry point on, one listener stays for the whole process:
 * - until a command holds the signals, it says what happened and exits as a stopped run does
 *   (status 1): nothing had been sent by then;
 * - while a command holds them (a run, a worker, the emulator), it leaves them to the command's
 *   own listener;
 * - once the command lets them go (the run is over), a signal ends the process at once (status 1).
 *
 * It is never removed, only told: a signal that arrives while the modules load is dispatched only
 * when the event loop next turns, and Node drops it if every listener of that signal was removed
 * in between. Handing over by removing this listener lost a Ctrl-C pressed in that window: the run
 * then went on to its end as if none had come.
 *
 * Kept apart from _signals.ts so that the entry point loads it before anything heavy.
 */
import { EXIT_STATUS } from '../errors.js';

/**
 * SIGHUP with the others: a terminal closed or an SSH session dropped while a command starts ended
 * it with Node's default (status 129, not a word). Each command that holds the signals listens
 * for SIGHUP too (a run and a worker stop the orderly way, the emulator closes).
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface EarlyOptions {
  /** @default process.exit */
  readonly exit?: (code: number) => void;
  /** @default writes to standard error */
  readonly write?: (text: string) => void;
}

/** Whether a command has held the signals yet; `holds` counts those holding them now. */
let held = false;
let holds = 0;
let listener: ((name: NodeJS.Signals) => void) | undefined;

/** Listens from now on, for the rest of the process (see the module comment). */
export function listenEarly(options: EarlyOptions = {}): void {
  stopListening();
  held = false;
  holds = 0;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const onSignal = (name: NodeJS.Signals) => {
    if (holds > 0) return;
    write(
      !held
        ? `\ngeobatch: stopped by ${name}, before any request was sent\n`
        : `\ngeobatch: stopped by ${name}\n`,
    );
    exit(EXIT_STATUS.stopped);
  };
  listener = onSignal;
  for (const name of SIGNALS) process.on(name, onSignal);
}

/**
 * A command handles the signals with a listener of its own until it calls the function returned;
 * a signal after that ends the process at once.
 */
export function holdSignals(): () => void {
  held = true;
  holds++;
  let holding = true;
  return () => {
    if (holding) holds--;
    holding = false;
  };
}

/** A command that stops nothing in order of its own (the demo): a signal ends it at once. */
export function letSignalsGo(): void {
  held = true;
}

/** Removes the listener (tests). */
export function stopListening(): void {
  if (listener === undefined) return;
  for (const name of SIGNALS) process.off(name, listener);
  listener = undefined;
}
