/**
 * When an interface's silence means the service is gone, so that the run stops
 * (SERVICE_UNREACHABLE) and keeps its checkpoint instead of failing every row left, one retry
 * schedule at a time. A request counts when its last attempt met no answer at all: it could not
 * connect (refused, no such host), it connected and timed out (a hung or saturated service), or
 * its connection was closed without an answer (a load balancer before a dead backend, which
 * takes connections and drops them: without this, 2,000 rows each spent their retries on it for
 * 218 s and failed as NETWORK, and the run never stopped).
 * An answer of any status means the service is there, and starts the count again.
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
 * The silence that stops a run, from the interface's last answer or, when it never answered and
 * a request timed out, from its first attempt. Shorter, the requests it catches fail (NETWORK,
 * TIMEOUT) and the run goes on: a restart, a network blip, a service slow for a while. Requests
 * that never connected (or whose connections were closed without an answer) to an interface that
 * never answered stop the run without it: the address is wrong or nothing runs there, and waiting
 * proves nothing more. A timeout does wait for it: it connected, and a service slow to start is
 * still a service.
 */
export const OUTAGE_MS = 30_000;

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
  /** Sending time of the interface's earliest attempt. */
  firstSentAt: number;
  unconnected: number;
  timedOut: number;
  dropped: number;
  connectCode: string | undefined;
}

/**
 * Per interface: its answers and its requests without one. Every time is an attempt's sending
 * time, so that an answer that took long still counts from when it was asked for.
 */
export class Outages {
  readonly #watches = new Map<InterfaceName, Watch>();

  /** An attempt that got no answer went out at `at` (one that did is `heard`). */
  sent(service: InterfaceName, at: number): void {
    const watch = this.#watches.get(service);
    if (watch === undefined) this.#watches.set(service, fresh(at));
    else if (at < watch.firstSentAt) watch.firstSentAt = at;
  }

  /** An attempt sent at `at` got an answer: the service is there. */
  heard(service: InterfaceName, at: number): void {
    let watch = this.#watches.get(service);
    if (watch === undefined) {
      watch = fresh(at);
      this.#watches.set(service, watch);
    }
    // Answers arrive out of order (a slow one after a quick one sent later): keep the latest.
    if (watch.answeredAt === undefined || at > watch.answeredAt) watch.answeredAt = at;
    watch.unconnected = watch.timedOut = watch.dropped = 0;
  }

  /**
   * One more request that ended without an answer, its last attempt sent at `at`: the outage to
   * report when the run must stop, else undefined.
   */
  failed(service: InterfaceName, silence: Silence, code: string, at: number): Outage | undefined {
    const watch = this.#watches.get(service) ?? fresh(at);
    this.#watches.set(service, watch);
    if (silence === 'unconnected') {
      watch.unconnected++;
      watch.connectCode = code;
    } else if (silence === 'timed-out') watch.timedOut++;
    else watch.dropped++;
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
    if (silentMs < OUTAGE_MS) return undefined;
    return { unconnected, timedOut, dropped, connectCode, answered, silentMs };
  }
}

function fresh(at: number): Watch {
  return {
    answeredAt: undefined,
    firstSentAt: at,
    unconnected: 0,
    timedOut: 0,
    dropped: 0,
    connectCode: undefined,
  };
}
