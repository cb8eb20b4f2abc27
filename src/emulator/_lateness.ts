/**
 * How far from their time the emulator's latency timers fire, learned from the ones that did.
 *
 * A timer fires off its time by a fraction of a millisecond: late by Node's whole-millisecond
 * granularity, early because Node counts a timer from the time its loop turn began, which a busy
 * loop (32 requests in flight) has long left behind. Either way a client measured against
 * rows x 20 ms / 32 was measured against a service that did not take 20 ms. Asking each timer
 * for the error seen less holds requests the configured latency on average (20.06 ms at 20, 3,000
 * requests at 32 in flight). Each still fires off it as timers do: at 20 ms, 98% were held
 * 17.7 ms or more, the earliest 16.5 ms; a jitter of 0 is no promise for a single request.
 */
export class Lateness {
  #late = 0;

  /**
   * What to ask a timer for, to wait `ms` (in tenths of a millisecond: each distinct duration is
   * a timer list of its own in Node).
   */
  wait(ms: number): number {
    return Math.max(0, Math.round((ms - this.#late) * 10) / 10);
  }

  /** A timer meant to wait `ms` took `tookMs`: a small step toward its error, so one stall (a GC pause) moves it little. */
  fired(ms: number, tookMs: number): void {
    const next = this.#late + STEP * (tookMs - ms);
    this.#late = Math.min(Math.max(next, -MAX_LATE_MS), Math.min(ms, MAX_LATE_MS));
  }

  /** The lateness made up for now (ms; below 0, timers fire early). */
  get ms(): number {
    return this.#late;
  }
}

/** The share of each timer's error that the learned lateness takes on. */
const STEP = 0.05;
/** An error beyond this either way is a stalled loop, not timers: not made up for. */
const MAX_LATE_MS = 2;
