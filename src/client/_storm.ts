/**
 * When an interface's answers mean no request can get through, though it does answer: the
 * counterpart of _outage.ts for a service that is there but serves nothing. Two kinds:
 *
 * - Errors (`Storms`): an interface that answers only 502, 503 or 504 (and 500, below) is down as
 *   surely as a silent one: a maintenance window, a backend gone behind its proxy. Without this
 *   the run never stopped: a 4,000-point reverse-geocode against `error503: 1` sent 8,000
 *   requests (48,000 attempts, 1,650 a second) in 29 s, failed every row and kept no checkpoint;
 *   an 8-s 503 window failed 3 rows for good. So the same verdict as a silence: 2 requests out of
 *   retries on such answers, and `retry.outageMs` since the interface last served one (answered
 *   2xx, or a 4xx other than 429; since its first attempt if it never did), stop the run
 *   (SERVICE_UNREACHABLE, checkpoint kept); till then a request whose retries ran out on a 502,
 *   503 or 504 while nothing sent since its first attempt was served waits, an attempt a second,
 *   rather than fails. A row the service alone fails while it serves others still fails.
 *   A 500 counts towards the verdict but its request does not wait: a 500 may be one row's bug
 *   (an input that crashes the backend), which waiting would hold in a run that sends one
 *   request at a time until it stopped the run; only a service that answers 500 to everything for
 *   `outageMs` stops it, its rows failing meanwhile as before.
 * - Pushback (`Pushbacks`): an interface that answers only 429. The adaptive rate sinks to its
 *   floor (`throttle.aimd.minRate`, 0.5/s) and stays there: `error429: 1` wrote no row in 5
 *   minutes, and the run would have gone on for hours. A warning once only 429s came for
 *   `retry.outageMs`; a stop (QUOTA_EXCEEDED, checkpoint kept) after PUSHBACK_STOP_FACTOR times
 *   that (5 minutes by default: 150 attempts at the floor rate, none let through, is no limit a
 *   slower client meets but a service that lets nothing through), each with a least number of 429s
 *   in a row besides its time (PUSHBACK_WARN_ANSWERS, PUSHBACK_STOP_ANSWERS). Any other answer
 *   starts again.
 * Of an interface that served earlier in the run, a request alone in a storm, or one the service
 * failed while it served others, is no evidence (_distinct.ts): it fails its row.
 */
import type { InterfaceName } from './options.js';

/** Statuses that say the whole service is down, not this request: their requests wait. */
const DOWN: ReadonlySet<number> = new Set([502, 503, 504]);

/** Statuses of a service that serves nothing when they are all it answers (DOWN and 500). */
const FAILING: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** Requests that must run out of retries on FAILING answers for the run to stop (as _outage.ts). */
const STORM_AFTER = 2;

/** Times `retry.outageMs` of nothing but 429 that stop the run (the warning comes at 1 time). */
export const PUSHBACK_STOP_FACTOR = 10;

/** Whether an answer's status says the request was served: 2xx, or a 4xx other than 408 and 429. */
export function served(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

/** Whether a request out of retries on `status` waits for the service (502, 503, 504). */
export function waitsOn(status: number): boolean {
  return DOWN.has(status);
}

/** Whether `status` counts towards an error storm's verdict (500, 502, 503, 504). */
export function failing(status: number): boolean {
  return FAILING.has(status);
}

/** What a stopping verdict saw since the interface last served a request (or ever). */
export interface Storm {
  /** Requests that ran out of retries on FAILING answers. */
  readonly requests: number;
  /** The statuses those answers had, in ascending order. */
  readonly statuses: readonly number[];
  /** True when the interface served a request earlier in the run. */
  readonly served: boolean;
  /** From its last served answer (or its first attempt) to the last attempt sent. */
  readonly silentMs: number;
}

interface StormWatch {
  servedAt: number | undefined;
  servedOrder: number;
  firstSentAt: number;
  requests: number;
  statuses: Set<number>;
  waitingSince: number | undefined;
  /** True once this storm was told (a storm of 500s, whose requests do not wait). */
  warned: boolean;
}

/** Per interface: its served answers, and its requests out of retries on FAILING ones. */
export class Storms {
  readonly #watches = new Map<InterfaceName, StormWatch>();
  readonly #outageMs: number;

  constructor(outageMs: number) {
    this.#outageMs = outageMs;
  }

  /** An attempt of the interface went out at `at`. */
  sent(service: InterfaceName, at: number): void {
    const watch = this.#watches.get(service);
    if (watch === undefined) this.#watches.set(service, freshStorm(at));
    else if (at < watch.firstSentAt) watch.firstSentAt = at;
  }

  /**
   * An attempt sent at `at`, `order`th of the process's, was served: the storm is over. Returns
   * when the first request that waited for it began to, when one did, else undefined.
   */
  served(service: InterfaceName, at: number, order: number): number | undefined {
    const watch = this.#watch(service, at);
    if (watch.servedAt === undefined || at > watch.servedAt) watch.servedAt = at;
    if (order > watch.servedOrder) watch.servedOrder = order;
    watch.requests = 0;
    watch.statuses.clear();
    watch.warned = false;
    const waited = watch.waitingSince;
    watch.waitingSince = undefined;
    return waited;
  }

  /**
   * A request ran out of retries on `status`, its last attempt sent at `at`; `again` when it was
   * already waiting (counted once, when its retries ran out). The storm to report when the run
   * must stop, else undefined.
   */
  failed(service: InterfaceName, status: number, at: number, again: boolean): Storm | undefined {
    const watch = this.#watch(service, at);
    watch.statuses.add(status);
    if (!again || watch.requests === 0) watch.requests++;
    // A single request waiting alone (a run of one request) meets the verdict by its attempts.
    if (!again && watch.requests < STORM_AFTER) return undefined;
    const silentMs = at - (watch.servedAt ?? watch.firstSentAt);
    if (silentMs < this.#outageMs) return undefined;
    const statuses = [...watch.statuses].sort((a, b) => a - b);
    return { requests: watch.requests, statuses, served: watch.servedAt !== undefined, silentMs };
  }

  /**
   * Whether a request whose first attempt went out `since` (its Sent.order), out of retries on a
   * DOWN status at `at`, waits rather than fails: nothing sent since its first attempt was served.
   * Unlike a silence, an interface that never served waits too: it answers, so the address is
   * right. Returns true for the first request to wait in a storm, 'waiting' for the others.
   */
  waits(service: InterfaceName, since: number, at: number): boolean | 'waiting' {
    const watch = this.#watch(service, at);
    if (watch.servedOrder > since) return false;
    if (watch.waitingSince !== undefined) return 'waiting';
    watch.waitingSince = at;
    return true;
  }

  /**
   * Whether the interface served a request first sent after the one first sent `since` (its
   * Sent.order): that request's failures are its own (a poison row), no evidence of a storm.
   */
  servedAround(service: InterfaceName, since: number): boolean {
    const watch = this.#watches.get(service);
    return watch !== undefined && watch.servedOrder > since;
  }

  /** True the first time in a storm that its requests, counted, should be told of (500s). */
  warns(service: InterfaceName, at: number): boolean {
    const watch = this.#watch(service, at);
    if (watch.warned || watch.waitingSince !== undefined) return false;
    watch.warned = true;
    return true;
  }

  #watch(service: InterfaceName, at: number): StormWatch {
    let watch = this.#watches.get(service);
    if (watch === undefined) {
      watch = freshStorm(at);
      this.#watches.set(service, watch);
    }
    return watch;
  }
}

function freshStorm(at: number): StormWatch {
  return {
    servedAt: undefined,
    servedOrder: 0,
    firstSentAt: at,
    requests: 0,
    statuses: new Set(),
    waitingSince: undefined,
    warned: false,
  };
}

/**
 * 429 answers in a row, none served between, that a warning (and a stop) needs besides its time.
 * Time alone was no measure at the adaptive rate's floor: 60 % random 429s (40 % served) with
 * retry.outageMs at 1 s met 9 of them in a row over 14 s, stopped the run (QUOTA_EXCEEDED, "it
 * lets nothing through") and logged about 40 warnings "nothing gets through" before. A run of 10
 * in a row comes once in 160 storms from a service that serves 40 %, of 25 once in 350,000; one
 * that serves nothing meets them at once (the default stop's 5 minutes hold 150 at the floor).
 */
export const PUSHBACK_WARN_ANSWERS = 10;
export const PUSHBACK_STOP_ANSWERS = 25;

/** What a run that met only 429s has seen: since when, and whether to warn or stop. */
export interface Pushback {
  readonly action: 'warn' | 'stop';
  /** From the first 429 since the last other answer to this one's sending. */
  readonly sinceMs: number;
  /** 429 answers in that time. */
  readonly answers: number;
}

interface PushbackWatch {
  since: number | undefined;
  answers: number;
  warned: boolean;
  /** Sending time of the latest attempt answered otherwise than 429. */
  otherAt: number | undefined;
}

/** Per interface: how long it has answered nothing but 429. */
export class Pushbacks {
  readonly #watches = new Map<InterfaceName, PushbackWatch>();
  readonly #warnMs: number;
  readonly #stopMs: number;

  /** Warns after `outageMs` of only 429s, stops after PUSHBACK_STOP_FACTOR times that. */
  constructor(outageMs: number) {
    this.#warnMs = outageMs;
    this.#stopMs = outageMs * PUSHBACK_STOP_FACTOR;
  }

  /** The stop's threshold, in ms. */
  get stopMs(): number {
    return this.#stopMs;
  }

  /**
   * An answer of `status` to an attempt sent at `at`: for a 429, 'warn' the first time only 429s
   * came for the warning's time (and PUSHBACK_WARN_ANSWERS of them), 'stop' once they came for
   * the stop's (and PUSHBACK_STOP_ANSWERS); else undefined. Any other answer ends the storm; a 429
   * to an attempt sent before the latest such answer's is no part of the next one.
   */
  answered(service: InterfaceName, status: number, at: number): Pushback | undefined {
    let watch = this.#watches.get(service);
    if (watch === undefined) {
      watch = { since: undefined, answers: 0, warned: false, otherAt: undefined };
      this.#watches.set(service, watch);
    }
    if (status !== 429) {
      watch.since = undefined;
      watch.answers = 0;
      watch.warned = false;
      if (watch.otherAt === undefined || at > watch.otherAt) watch.otherAt = at;
      return undefined;
    }
    if (watch.otherAt !== undefined && at < watch.otherAt) return undefined;
    watch.answers++;
    // Answers arrive out of order: the storm began at the earliest 429's sending.
    if (watch.since === undefined || at < watch.since) watch.since = at;
    const sinceMs = at - watch.since;
    const { answers } = watch;
    if (sinceMs >= this.#stopMs && answers >= PUSHBACK_STOP_ANSWERS)
      return { action: 'stop', sinceMs, answers };
    if (sinceMs >= this.#warnMs && answers >= PUSHBACK_WARN_ANSWERS && !watch.warned) {
      watch.warned = true;
      return { action: 'warn', sinceMs, answers };
    }
    return undefined;
  }
}
