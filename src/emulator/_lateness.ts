/**
 * How late the emulator's latency timers fire, learned from the ones that did.
 *
 * A timer fires a fraction of a millisecond after its time (whole-millisecond granularity, a loop
 * busy with other requests): at 20 ms and 32 requests in flight, requests were held about 0.6 ms
 * longer than asked, and a client measured against rows x 20 ms / 32 was charged for the
 * emulator's lateness. Asking each timer for that much less holds requests the configured latency
 * on average; each still fires within a millisecond or two of it, as timers do.
 */
export class Lateness {
  #late = 0;

  /** What to ask a timer for, to wait `ms` (tenths of a millisecond: each distinct duration is a timer list of its own in Node). */
  wait(ms: number): number {
    return Math.max(0, Math.round((ms - this.#late) * 10) / 10);
  }

  /** A timer meant to wait `ms` took `tookMs`: a small step toward its error, so one stall (a GC pause) moves it little. */
  fired(ms: number, tookMs: number): void {
    const next = this.#late + STEP * (tookMs - ms);
    this.#late = Math.min(Math.max(next, 0), Math.min(ms, MAX_LATE_MS));
  }

  /** The lateness made up for now (ms). */
  get ms(): number {
    return this.#late;
  }
}

/** The share of each timer's error that the learned lateness takes on. */
const STEP = 0.05;
/** Lateness beyond this is a stalled loop, not timer granularity: not made up for. */
const MAX_LATE_MS = 2;
