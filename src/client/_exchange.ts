/**
 * One attempt on the wire: a throttle slot, the HTTP exchange under its deadline, the counts. Or
 * two, when the first is slow: the hedge.
 *
 * A hedge is the same request (same X-Request-Id) sent again through the throttle while the first
 * is still out, and a hedge that is slow in turn gets one more (two hung attempts of a hundred
 * hedged happen: a run of 10,000 rows with 1% hangs met them twice, 5 s each); whichever answers
 * first is the attempt's result and the others are abandoned (their sockets closed). Every operation the client sends is a read, so the duplicate is harmless; its
 * cost is quota, which the budget in _latency.ts bounds. A first answer that is itself a failure
 * (a reset, a 500) still wins: the retry loop then decides, as for any attempt.
 */
import { performance } from 'node:perf_hooks';
import { ABANDONED } from './_deadline.js';
import type { Latencies, OperationLatency } from './_latency.js';
import type { AttemptOptions, Http, HttpFailure, HttpRequest, HttpResponse } from './http.js';
import type { Metrics } from './metrics.js';
import type { InterfaceName } from './options.js';
import type { Throttle } from './throttle.js';

/** Whether an attempt got past the throttle onto the wire, and whether it is a hedge. */
interface Wire {
  sent: boolean;
  readonly hedge: boolean;
}

/** Attempts of one request out at once: the first and up to two hedges (a hedge may hang too). */
const MAX_OUT = 3;

export interface ExchangeParts {
  readonly http: Http;
  readonly throttle: Throttle;
  readonly metrics: Metrics;
  readonly latencies: Latencies;
}

/** What one attempt (or hedged pair) gave. */
export interface Sent {
  readonly result: HttpResponse | HttpFailure;
  readonly sentAt: number;
  /** The deadline it ran under. */
  readonly timeoutMs: number;
}

export class Exchange {
  readonly #p: ExchangeParts;

  constructor(parts: ExchangeParts) {
    this.#p = parts;
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
    if (hedgeMs === undefined) return this.#attempt(service, request, op, signal, { timeoutMs });
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
      let done = false;
      let launched = 0;
      /** Attempts that may still be running, by number: what abandons each, and whether it went out. */
      const running = new Map<number, { abandon: () => void; wire: Wire }>();
      const win = (number: number) => {
        done = true;
        for (const [other, { abandon, wire }] of running) {
          if (other === number) continue;
          // Counted here, not when its promise settles: the caller has its answer by then.
          if (wire.sent) metrics.abandoned(service);
          abandon();
        }
      };
      const launch = (attemptSignal: AbortSignal | undefined, abandon?: () => void): Promise<void> => {
        const number = ++launched;
        const wire: Wire = { sent: false, hedge: number > 1 };
        if (abandon !== undefined) running.set(number, { abandon, wire });
        const onSlow = (abandonThis: () => void) => {
          if (!running.has(number)) running.set(number, { abandon: abandonThis, wire });
          // After the answers the event loop holds: the deadline sweep is a timer, and timers run
          // before I/O, so after a stall (GC, a busy core) every attempt in flight looks slow
          // while its answer sits unread. Hedging those spent the budget on nothing.
          setImmediate(() => {
            if (done || launched >= MAX_OUT || !latencies.stillSlow(op, hedgeMs)) return;
            if (latencies.takeHedge()) hedge();
          });
        };
        return this.#attempt(
          service,
          request,
          op,
          attemptSignal,
          { timeoutMs, slowMs: hedgeMs, onSlow },
          wire,
        ).then(
          (sent) => {
            if (done) return;
            win(number);
            if (number > 1) metrics.hedgeWon();
            resolve(sent);
          },
          (error: unknown) => {
            // A hedge dropped while it queued for the throttle, or the caller aborted (which the
            // first attempt reports).
            if (done || number > 1) return;
            win(number);
            reject(error);
          },
        );
      };
      const hedge = () => {
        const controller = new AbortController();
        const forward = () => controller.abort(signal?.reason);
        signal?.addEventListener('abort', forward, { once: true });
        void launch(controller.signal, () => controller.abort(ABANDONED)).finally(() =>
          signal?.removeEventListener('abort', forward),
        );
      };
      void launch(signal);
    });
  }

  /** Sends one attempt through the throttle, counting it, its wait and its latency. */
  async #attempt(
    service: InterfaceName,
    request: HttpRequest,
    op: OperationLatency,
    signal: AbortSignal | undefined,
    attempt: AttemptOptions & { readonly timeoutMs: number },
    wire?: Wire,
  ): Promise<Sent> {
    const { throttle, metrics, http } = this.#p;
    const wait = throttle.acquire(service, signal);
    if (wait !== undefined) {
      const waitStart = performance.now();
      await wait;
      metrics.throttleWait(performance.now() - waitStart);
    }
    if (wire !== undefined) {
      wire.sent = true;
      // Counted once on the wire: a hedge dropped while it queued for a slot cost nothing.
      if (wire.hedge) metrics.hedge();
    }
    const sentAt = Date.now();
    const started = performance.now();
    let result: HttpResponse | HttpFailure;
    try {
      result = await http.send(request, signal, attempt);
    } finally {
      throttle.release(service);
    }
    const sent = { result, sentAt, timeoutMs: attempt.timeoutMs };
    // Counted by whoever abandoned it.
    if (!result.ok && result.code === 'ABANDONED') return sent;
    const ms = performance.now() - started;
    metrics.request(service, result.ok ? result.status : result.kind, ms);
    if (result.ok) {
      throttle.answered(service, result.status, result.headers['retry-after'] !== undefined);
      // An answer the service took its time over; refusals are quick and say nothing about that.
      if (result.status < 500 && result.status !== 429) op.record(ms);
    }
    return sent;
  }
}
