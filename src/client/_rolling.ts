/**
 * Events per second over the last second, from two one-second counts (the current window and the
 * one before, weighted by how much of it still lies within the last second). Two integers and a
 * timestamp: cheap enough to update on every request.
 */

/** Shortest span a rate is measured over, so that one burst does not read as an absurd rate. */
const MIN_SPAN_MS = 100;

export class RollingRate {
  #firstAt: number | undefined;
  #windowStart: number;
  #count = 0;
  #previous = 0;

  constructor(now: number) {
    this.#windowStart = now;
  }

  add(now: number): void {
    this.#firstAt ??= now;
    this.#roll(now);
    this.#count++;
  }

  /** Per second over the last second, or since the first event if that is more recent. */
  perSecond(now: number): number {
    this.#roll(now);
    const fraction = Math.min(1, (now - this.#windowStart) / 1000);
    const count = this.#previous * (1 - fraction) + this.#count;
    const span = Math.min(1000, Math.max(MIN_SPAN_MS, now - (this.#firstAt ?? now)));
    return (count * 1000) / span;
  }

  #roll(now: number): void {
    const elapsed = now - this.#windowStart;
    if (elapsed < 1000) return;
    this.#previous = elapsed < 2000 ? this.#count : 0;
    this.#count = 0;
    this.#windowStart = now - (elapsed % 1000);
  }
}
