/**
 * When an interface's silence means the service is gone, so that the run stops
 * (SERVICE_UNREACHABLE) and keeps its checkpoint instead of failing every row left, one retry
 * schedule at a time; and, before that, which requests wait for it rather than fail: one whose
 * retries ran out while an interface that answered earlier in the run has answered nothing since
 * the request was first sent. Failing those bought nothing: a 4-s restart of the service failed
 * 112 rows for good, and a service killed mid-run failed 2,955 rows of 3,240 as NETWORK and ended
 * the run "done" with no checkpoint, each request's retries spent in seconds, long before the
 * verdict's 30 s. A request counts when its last attempt met no answer at all: it could not
 * connect (refused, no such host), it connected and timed out (a hung or saturated service), or
 * its connection was closed without an answer (a load balancer before a dead backend, which
 * takes connections and drops them: without this, 2,000 rows each spent their retries on it for
 * 218 s and failed as NETWORK, and the run never stopped).
 * An answer of any status means the service is there, and starts the count again: one that
 * answers only 5xx or only 429 is _storm.ts's to judge.
 */
import type { InterfaceName } from './options.js';

/**
 * Requests of an interface that must end without an answer, each through all its attempts, for
 * the run to stop. Not one: one request's attempts may all fall within a restart. Two, so that a
 * run of one request (a batch of 500 points, one area lookup) stops too: the engine gives a failed
 * request a second pass, which is the second. (Three let such runs end as "complete" with every
 * row failed.)
 */
const UNREACHABLE_AFTER = 2;

/**
 * The silence that stops a run (the default of `retry.outageMs`), from the interface's last answer
 * or, when it never answered and a request timed out, from its first attempt. Within it, the
 * requests it catches of an interface that answered wait for it (waits) and go on when it answers
 * again: a restart, a network blip; those of one that never answered fail (NETWORK, TIMEOUT), a
 * service slow to start. Requests that never connected (or whose connections were closed without
 * an answer) to an interface that never answered stop the run without it: the address is wrong or
 * nothing runs there, and waiting proves nothing more. A timeout does wait for it: it connected,
 * and a service slow to start is still a service.
 */
export const OUTAGE_MS = 30_000;

/** Hung requests remembered for their second pass; a bound that a run never reaches. */
const MAX_HUNG = 1_000;

/** How a request that got no answer ended, by its last attempt. */
export type Silence = 'unconnected' | 'timed-out' | 'dropped';

/** What a stopping verdict has seen since the interface's last answer (or ever). */
export interface Outage {
  /** Requests whose last attempt could not connect. */
  readonly unconnected: number;
  /** Requests whose last attempt timed out. */
  readonly timedOut: number;
  /** Requests whose last attempt's connection was closed without an answer (ECONNRESET, ...). */
  readonly dropped: number;
  /** The network code of the last request that could not connect. */
  readonly connectCode: string | undefined;
  /** True when the interface has answered before, in this run. */
  readonly answered: boolean;
  /**
   * From the last answer (or the first attempt, for an interface that never answered) to the
   * last attempt sent; undefined when the verdict needed no silence (never connected).
   */
  readonly silentMs: number | undefined;
}

interface Watch {
  /** Sending time of the latest attempt that was answered (any status). */
  answeredAt: number | undefined;
  /** Sending order (Sent.order) of the latest attempt that was answered. */
  answeredOrder: number;
  /** Sending time of the interface's earliest attempt. */
  firstSentAt: number;
  unconnected: number;
  timedOut: number;
  dropped: number;
  connectCode: string | undefined;
  /** When the first request to wait in this silence began to, once one did. */
  waitingSince: number | undefined;
}

/**
 * Per interface: its answers and its requests without one. Every time is an attempt's sending
 * time, so that an answer that took long still counts from when it was asked for.
 */
export class Outages {
  readonly #watches = new Map<InterfaceName, Watch>();
  readonly #outageMs: number;
  /** Requests (`hung`'s `request`, by interface) the service hung while answering others. */
  readonly #hung = new Set<string>();

  constructor(outageMs: number = OUTAGE_MS) {
    this.#outageMs = outageMs;
  }

  /** An attempt that got no answer went out at `at` (one that did is `heard`). */
  sent(service: InterfaceName, at: number): void {
    const watch = this.#watches.get(service);
    if (watch === undefined) this.#watches.set(service, fresh(at));
    else if (at < watch.firstSentAt) watch.firstSentAt = at;
  }

  /**
   * An attempt sent at `at`, `order`th of the process's, got an answer: the service is there.
   * Returns when the first request that waited for it began to, when one did, else undefined.
   */
  heard(service: InterfaceName, at: number, order: number): number | undefined {
    let watch = this.#watches.get(service);
    if (watch === undefined) {
      watch = fresh(at);
      this.#watches.set(service, watch);
    }
    // Answers arrive out of order (a slow one after a quick one sent later): keep the latest.
    if (watch.answeredAt === undefined || at > watch.answeredAt) watch.answeredAt = at;
    if (order > watch.answeredOrder) watch.answeredOrder = order;
    watch.unconnected = watch.timedOut = watch.dropped = 0;
    const waited = watch.waitingSince;
    watch.waitingSince = undefined;
    return waited;
  }

  /**
   * Whether a request whose first attempt went out `since` (its Sent.order), out of retries
   * without an answer at `at`, waits for the service rather than fails: the interface answered
   * earlier in this run and nothing sent after that first attempt has been answered. A request the
   * service alone leaves unanswered while it answers others (one that hangs it) still fails; so
   * does one of an interface that never answered, the verdict's to judge (a wrong address is not
   * waited for). Returns true for the first request to wait in a silence (so that it is told
   * once), 'waiting' for the others, false for none.
   */
  waits(service: InterfaceName, since: number, at: number): boolean | 'waiting' {
    const watch = this.#watches.get(service);
    if (watch?.answeredAt === undefined || watch.answeredOrder > since) return false;
    if (watch.waitingSince !== undefined) return 'waiting';
    watch.waitingSince = at;
    return true;
  }

  /**
   * Whether a request out of retries without an answer, first sent `since` (its Sent.order), is one
   * the service hung while it answered others (answers came to requests sent after it): it fails
   * (TIMEOUT, NETWORK) and is no outage, neither counted nor waiting. Nor is its second pass
   * (`request` names it: method, address, body) when it timed out both times and nothing else has
   * gone unanswered since: nothing sent after it was answered, but then nothing else was sent
   * either. Before, that second pass was the second request of the outage, and a run whose every
   * other request was answered stopped after 5 minutes, throwing away 14,275 answered rows.
   */
  hung(service: InterfaceName, silence: Silence, since: number, request: string): boolean {
    const watch = this.#watches.get(service);
    if (watch?.answeredAt === undefined) return false;
    const key = `${service} ${request}`;
    const quiet = watch.unconnected + watch.timedOut + watch.dropped === 0;
    if (this.#hung.delete(key) && silence === 'timed-out' && quiet) return true;
    if (watch.answeredOrder <= since) return false;
    if (silence === 'timed-out') {
      if (this.#hung.size >= MAX_HUNG) this.#hung.clear();
      this.#hung.add(key);
    }
    return true;
  }

  /**
   * A further attempt of a request that waits, sent at `at`, got no answer either: the outage
   * once the interface has answered nothing for the silence that stops a run, else undefined.
   * The request was counted once, when its retries ran out (`failed`); its waiting attempts are
   * not more requests (but for one counted before a late answer to an earlier request cleared the
   * count: the verdict names at least the request that met it).
   */
  stillSilent(service: InterfaceName, silence: Silence, code: string, at: number): Outage | undefined {
    const watch = this.#watches.get(service);
    if (watch?.answeredAt === undefined) return undefined;
    if (silence === 'unconnected') watch.connectCode = code;
    if (watch.unconnected + watch.timedOut + watch.dropped === 0) count(watch, silence);
    const silentMs = at - watch.answeredAt;
    if (silentMs < this.#outageMs) return undefined;
    const { unconnected, timedOut, dropped, connectCode } = watch;
    return { unconnected, timedOut, dropped, connectCode, answered: true, silentMs };
  }

  /**
   * One more request that ended without an answer, its last attempt sent at `at`: the outage to
   * report when the run must stop, else undefined.
   */
  failed(service: InterfaceName, silence: Silence, code: string, at: number): Outage | undefined {
    const watch = this.#watches.get(service) ?? fresh(at);
    this.#watches.set(service, watch);
    if (silence === 'unconnected') watch.connectCode = code;
    count(watch, silence);
    if (watch.unconnected + watch.timedOut + watch.dropped < UNREACHABLE_AFTER) return undefined;
    const { answeredAt, unconnected, timedOut, dropped, connectCode } = watch;
    const answered = answeredAt !== undefined;
    // An interface that never answered stops at once when its requests could not connect or had
    // their connections closed: no answer came, and waiting proves nothing more (a load balancer
    // that drops at once finished a 2,000-row file in 23 s, 24,000 requests, within the 30 s). A
    // timeout waits: it connected, and a service slow to start is still a service.
    if (!answered && timedOut === 0)
      return { unconnected, timedOut, dropped, connectCode, answered, silentMs: undefined };
    const silentMs = at - (answeredAt ?? watch.firstSentAt);
    if (silentMs < this.#outageMs) return undefined;
    return { unconnected, timedOut, dropped, connectCode, answered, silentMs };
  }
}

function count(watch: Watch, silence: Silence): void {
  if (silence === 'unconnected') watch.unconnected++;
  else if (silence === 'timed-out') watch.timedOut++;
  else watch.dropped++;
}

function fresh(at: number): Watch {
  return {
    answeredAt: undefined,
    answeredOrder: 0,
    firstSentAt: at,
    unconnected: 0,
    timedOut: 0,
    dropped: 0,
    connectCode: undefined,
    waitingSince: undefined,
  };
}
