/**
 * Tells a sustained limit from sporadic pushback. A 429 (or a Retry-After on another status) says
 * either "you are over my limit" or "this one request could not be served now"; only the first
 * is a reason to slow the whole interface down. The two differ in how many answers say it: a
 * limit refuses a growing share of requests as soon as the client exceeds it, while random
 * refusals (an overloaded backend node, a proxy's hiccup) stay a small share whatever the rate.
 *
 * So pushback counts as sustained only when it makes up more than `tolerance` of the recent
 * answers by more than chance explains: three standard deviations of the count a share of
 * `tolerance` would give (binomial). Counts are halved every WINDOW answers: the share is over the
 * last ~100-200 answers, read over at least MIN_ANSWERS so that the first 429 of a run is not a
 * 100% share. Without the margin, random 429s just under the tolerance (4% against 5%) crossed it
 * by chance every few hundred answers, and every crossing cut the rate, which random refusals do
 * not heed: 600 rows took 49 s instead of 2.7, and at 5% the rate sank to its floor. With it, 100
 * answers need 12 pushbacks, 200 need 20; a client at twice a service's limit meets 50% and is
 * caught within a few dozen answers.
 */

const WINDOW = 200;
const MIN_ANSWERS = 40;
/** Standard deviations above the tolerated count: chance crosses it about once in 700 reads. */
const Z = 3;

export class PushbackShare {
  readonly #tolerance: number;
  #answers = 0;
  #pushbacks = 0;

  /** `tolerance` 0: every pushback counts as sustained (no sporadic 429s). */
  constructor(tolerance: number) {
    this.#tolerance = tolerance;
  }

  /** One answer from the service; `pushback` when it was a 429 or carried a Retry-After. */
  answered(pushback: boolean): void {
    if (this.#answers >= WINDOW) {
      this.#answers /= 2;
      this.#pushbacks /= 2;
    }
    this.#answers++;
    if (pushback) this.#pushbacks++;
  }

  /** True when recent pushback is more than random refusals explain: a limit to slow down for. */
  get sustained(): boolean {
    if (this.#tolerance === 0) return true;
    const n = Math.max(this.#answers, MIN_ANSWERS);
    const expected = this.#tolerance * n;
    return this.#pushbacks > expected + Z * Math.sqrt(expected * (1 - this.#tolerance));
  }
}
