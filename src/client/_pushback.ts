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

/** Answers after a cut that tell whether it lowered the share of pushback. */
const MEASURED = 100;
/** The most pushback taken as background noise: beyond it, a limit however it answers cuts. */
const MOST_BACKGROUND = 0.25;

export class PushbackShare {
  readonly #tolerance: number;
  #answers = 0;
  #pushbacks = 0;
  /**
   * The share tolerated: `tolerance`, raised to a background share of pushback that a cut of the
   * rate did not lower. A limit refuses less once the client sends less (a client at twice a
   * limit meets 50%, none once halved); random refusals stay what they were. Without this, 8%
   * random 429s (above the tolerance) cut the rate and paused the interface again and again: 600
   * reverse-geocoded rows took 280 s (36 cuts); with it, 8 s (1 cut). A share that halves or more
   * after a cut is a limit's, and so is any share above MOST_BACKGROUND: neither is learnt.
   */
  #tolerated: number;
  #afterCut: { readonly before: number; answers: number; pushbacks: number } | undefined;

  /** `tolerance` 0: every pushback counts as sustained (no sporadic 429s). */
  constructor(tolerance: number) {
    this.#tolerance = tolerance;
    this.#tolerated = tolerance;
  }

  /**
   * The rate was cut: the next MEASURED answers tell whether that lowered the share. Cuts that
   * come while they are counted are of the same series (each sustained 429 of a round may cut
   * again): the measure goes on from the first, which a limit's share falls from, and random
   * refusals' does not however often the rate is cut.
   */
  cut(): void {
    const before = this.#answers === 0 ? 0 : this.#pushbacks / this.#answers;
    this.#afterCut ??= { before, answers: 0, pushbacks: 0 };
    // A further cut needs fresh evidence, gathered at the new rate: the answers before this one
    // are the old rate's, and would cut again on their own.
    this.#answers = 0;
    this.#pushbacks = 0;
  }

  /** One answer from the service; `pushback` when it was a 429 or carried a Retry-After. */
  answered(pushback: boolean): void {
    if (this.#answers >= WINDOW) {
      this.#answers /= 2;
      this.#pushbacks /= 2;
    }
    this.#answers++;
    if (pushback) this.#pushbacks++;
    const after = this.#afterCut;
    if (after === undefined) return;
    after.answers++;
    if (pushback) after.pushbacks++;
    if (after.answers < MEASURED) return;
    const share = after.pushbacks / after.answers;
    if (this.#tolerance > 0 && share >= after.before / 2 && share <= MOST_BACKGROUND)
      this.#tolerated = Math.max(this.#tolerated, share);
    this.#afterCut = undefined;
  }

  /** True when recent pushback is more than random refusals explain: a limit to slow down for. */
  get sustained(): boolean {
    if (this.#tolerance === 0) return true;
    const n = Math.max(this.#answers, MIN_ANSWERS);
    const expected = this.#tolerated * n;
    return this.#pushbacks > expected + Z * Math.sqrt(expected * (1 - this.#tolerated));
  }
}
