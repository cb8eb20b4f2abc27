/**
 * One attempt on the wire: a throttle slot, the HTTP exchange under its deadline, the counts. Or
 * more, when the first is slow: the hedge.
 *
 * A hedge is the same request (same X-Request-Id) sent again through the throttle while the first
 * is still out, and a hedge that is slow in turn gets one more (with 1% hangs, one hedge in a
 * hundred hangs too: a run of 10,000 rows met that twice, 5 s each); whichever answers first is
 * the attempt's result and the others are abandoned (their sockets closed). Every operation the
 * client sends is a read, so the duplicate is harmless; its cost is quota, which the budget in
 * _latency.ts bounds. A first answer that is itself a failure (a reset, a 500) still wins: the
 * retry loop then decides, as for any attempt. The race itself is _race.ts.
 */
import { performance } from 'node:perf_hooks';
import type { Latencies, OperationLatency } from './_latency.js';
import type { Sent, Wire } from './_race.js';
import { newWire, Race } from './_race.js';
import { Turns } from './_turns.js';
import type { AttemptOptions, Http, HttpFailure, HttpRequest, HttpResponse } from './http.js';
import type { Metrics } from './metrics.js';
import type { InterfaceName } from './options.js';
import type { Throttle } from './throttle.js';

export interface ExchangeParts {
  readonly http: Http;
  readonly throttle: Throttle;
  readonly metrics: Metrics;
  readonly latencies: Latencies;
  /** Requests in flight at most (the global concurrency): answers waiting their turn stay below it. */
  readonly concurrency: number;
}

/** Answers processed a turn of the event loop at least (_turns.ts): 1, 2 and 4 measured alike. */
const ANSWERS_PER_TURN = 2;

export type { Sent } from './_race.js';

/** Attempts sent by this process so far: each one's Sent.order. */
let sends = 0;

export class Exchange {
  readonly #p: ExchangeParts;
  readonly #turns: Turns;

  constructor(parts: ExchangeParts) {
    this.#p = parts;
    this.#turns = new Turns(ANSWERS_PER_TURN, parts.concurrency);
  }

  /** One attempt of a request to `op`; `afterTimeout` when an earlier attempt of it timed out. */
  send(
    service: InterfaceName,
    request: HttpRequest,
    op: OperationLatency,
    afterTimeout: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Sent> {
    const { latencies } = this.#p;
    const timeoutMs = latencies.deadlineMs(op, afterTimeout);
    const hedgeMs = latencies.hedgeAfterMs(op, timeoutMs);
    if (hedgeMs === undefined)
      return this.#attempt(service, request, op, signal, { timeoutMs, wire: newWire(false) });
    return this.#hedged(service, request, op, signal, timeoutMs, hedgeMs);
  }

  #hedged(
    service: InterfaceName,
    request: HttpRequest,
    op: OperationLatency,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    hedgeMs: number,
  ): Promise<Sent> {
    const { latencies, metrics } = this.#p;
    return new Promise<Sent>((resolve, reject) => {
      new Race({
        attempt: (attemptSignal, onSlow, wire) =>
          this.#attempt(service, request, op, attemptSignal, { timeoutMs, slowMs: hedgeMs, onSlow, wire }),
        worthHedging: () => latencies.stillSlow(op, hedgeMs) && latencies.takeHedge(),
        abandoned: () => metrics.abandoned(service),
        hedgeSent: () => metrics.hedge(),
        hedgeWon: () => metrics.hedgeWon(),
        resolve,
        reject,
      }).start(signal);
    });
  }

  /**
   * Sends one attempt through the throttle, counting it (once, and only if it was written: see
   * WireState), its wait and its latency.
   */
  async #attempt(
    service: InterfaceName,
    request: HttpRequest,
    op: OperationLatency,
    signal: AbortSignal | undefined,
    attempt: AttemptOptions & { readonly timeoutMs: number; readonly wire: Wire },
  ): Promise<Sent> {
    const { throttle, metrics, http } = this.#p;
    const wire = attempt.wire;
    const wait = throttle.acquire(service, signal);
    if (wait !== undefined) {
      const waitStart = performance.now();
      await wait;
      metrics.throttleWait(performance.now() - waitStart);
    }
    const sentAt = Date.now();
    const order = ++sends;
    const started = performance.now();
    let result: HttpResponse | HttpFailure;
    try {
      result = await http.send(request, signal, attempt);
    } catch (error) {
      // Cut off by a stop (Ctrl-C, another request's fatal answer) once written: the service may
      // have it, and bill it, so the run's count of requests keeps it.
      if (wire.written && !wire.counted) {
        wire.counted = true;
        metrics.aborted(service);
      }
      throw error;
    } finally {
      throttle.release(service);
    }
    // The slot is free for the next request; this answer is processed in its turn (_turns.ts).
    await this.#turns.next();
    const sent = { result, sentAt, order, timeoutMs: attempt.timeoutMs };
    // Counted (when it was written) by the race that abandoned it.
    if (!result.ok && result.code === 'ABANDONED') return sent;
    const ms = performance.now() - started;
    // Not when its race counted it abandoned already: answered in the turn its hedge won. Nor a
    // failure before it was written (refused at connect, a connect timeout): the service never
    // saw it. An answer was written, whether or not the pool said so.
    if (!wire.counted && (result.ok || wire.written)) {
      wire.counted = true;
      metrics.request(service, result.ok ? result.status : result.kind, ms);
    }
    if (result.ok) {
      throttle.answered(service, result.status, result.headers['retry-after'] !== undefined);
      // An answer the service took its time over; refusals are quick and say nothing about that.
      if (result.status < 500 && result.status !== 429) op.record(ms);
    }
    return sent;
  }
}
