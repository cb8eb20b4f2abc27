/**
 * The one path every call takes: auth -> throttle -> http (hedged when slow) -> retry decision ->
 * parse.
 *
 * The retry loop is written here rather than on p-retry: p-retry computes its own delay from
 * `minTimeout`/`factor` and has no way to take a per-attempt delay (Retry-After) from the failed
 * attempt, so honouring Retry-After would mean sleeping inside `onFailedAttempt` with p-retry's
 * own delay forced to zero. A short loop around `decideRetry` says the same thing plainly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { GeobatchError, isGeobatchError, ResponseError, RunError } from '../errors.js';
import type { RetrySleeps } from '../retry-sleeps.js';
import { redactUrl } from '../secrets.js';
import { abortedAt, sleep, untilAborted } from './_abort.js';
import type { Call } from './_call.js';
import { Distinct } from './_distinct.js';
import type { Sent } from './_exchange.js';
import { Exchange } from './_exchange.js';
import type { RequestPlace } from './_failures.js';
import {
  CONNECT_CODES,
  errorDetail,
  exhaustedError,
  fatalError,
  noSuchOperationError,
  rateLimitedError,
  statusError,
  stormError,
  unreachableError,
} from './_failures.js';
import { Latencies } from './_latency.js';
import type { Answer } from './_missing.js';
import { Operations, PROBE_TIMEOUT_MS, probePath } from './_missing.js';
import type { Silence } from './_outage.js';
import { Outages } from './_outage.js';
import { failing, PUSHBACK_STOP_FACTOR, Pushbacks, Storms, served, waitsOn } from './_storm.js';
import type { Auth } from './auth.js';
import { authorize, SCHEME, SERVICE_LABEL } from './auth.js';
import type { Http, HttpRequest } from './http.js';
import type { Metrics } from './metrics.js';
import type { InterfaceName, ResolvedOptions } from './options.js';
import type { AttemptFailure, RetryDecision } from './retry.js';
import { decideRetry } from './retry.js';
import type { Throttle } from './throttle.js';
import type { TokenManager } from './token.js';

export type { Base, Call } from './_call.js';
export { splitBase } from './_call.js';
export { OUTAGE_MS } from './_outage.js';

export interface TransportParts {
  readonly options: ResolvedOptions;
  readonly http: Http;
  readonly throttle: Throttle;
  readonly auth: Auth;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Attempts asleep before their retry, for the engine (src/retry-sleeps.ts). */
  readonly retrySleeps: RetrySleeps;
}

/** One attempt as the loop sees it. */
interface Attempt extends Sent {
  readonly number: number;
  readonly request: HttpRequest;
  readonly token: string | undefined;
}

type Read<T> =
  | { readonly done: true; readonly data: T }
  | { readonly done: false; readonly failure: AttemptFailure };

const MALFORMED: AttemptFailure = { kind: 'malformed' };

const MALFORMED_READ: Read<never> = { done: false, failure: MALFORMED };

/**
 * Longest pause between the attempts of a request that waits for a silent service: a second, so
 * that it is answered within about a second of the service's return, at a cost of one attempt a
 * second per waiting request (bounded by the rows in flight), each refused or dropped at once.
 */
const WAIT_MS = 1_000;

/** Network codes of attempts given up on our side, not a connection the service dropped. */
const NOT_DROPPED: ReadonlySet<string> = new Set(['ABANDONED', 'ABORTED']);

export class Transport {
  readonly #p: TransportParts;
  readonly #latencies: Latencies;
  readonly #exchange: Exchange;
  // Wired after construction: the token manager itself fetches through this transport.
  #tokens: TokenManager | undefined;
  readonly #idPrefix = randomBytes(4).toString('hex');
  #sequence = 0;
  readonly #outages: Outages;
  readonly #storms: Storms;
  readonly #pushbacks: Pushbacks;
  /** Distinct requests unanswered since each interface's last answer (_distinct.ts). */
  readonly #silent = new Distinct();
  /** Distinct requests answered only 5xx since each interface last served one. */
  readonly #unserved = new Distinct();
  readonly #operations = new Operations();
  #closed = false;
  /** Aborted by close(): wakes the calls asleep before a retry, which would hold the process. */
  readonly #closing = new AbortController();

  constructor(parts: TransportParts) {
    this.#p = parts;
    this.#outages = new Outages(parts.options.retry.outageMs);
    this.#storms = new Storms(parts.options.retry.outageMs);
    this.#pushbacks = new Pushbacks(parts.options.retry.outageMs);
    const { timeoutMs, adaptiveTimeout } = parts.options;
    this.#latencies = new Latencies({
      timeoutMs,
      adaptive: adaptiveTimeout.enabled,
      minMs: adaptiveTimeout.minMs,
      hedge: adaptiveTimeout.hedge,
    });
    this.#exchange = new Exchange({
      ...parts,
      latencies: this.#latencies,
      concurrency: parts.options.global.concurrency,
    });
  }

  /** Gives the transport the bearer tokens of autocomplete. */
  useTokens(tokens: TokenManager): void {
    this.#tokens = tokens;
  }

  /** Refuses every call from now on, and the next attempt of those under way (GeoClient.close). */
  close(): void {
    this.#closed = true;
    this.#closing.abort(new RunError('ABORTED', 'the client was closed'));
  }

  async call<T>(call: Call<T>, signal?: AbortSignal): Promise<T> {
    const place: RequestPlace = { service: call.service, endpoint: call.base.prefix + call.path };
    try {
      return await this.#attempts(call, place, signal);
    } catch (error) {
      // A call in flight when the client was closed says so, not "the request was aborted",
      // which reads as the caller's own signal.
      if (this.#closed && signal?.aborted !== true && isGeobatchError(error) && error.code === 'ABORTED')
        throw new RunError('ABORTED', 'the client was closed', { ...place, cause: error });
      throw abortedAt(error, place, signal);
    }
  }

  async #attempts<T>(call: Call<T>, place: RequestPlace, signal: AbortSignal | undefined): Promise<T> {
    const requestId = `${this.#idPrefix}-${(++this.#sequence).toString(36)}`;
    const bearer = SCHEME[call.service] === 'bearer';
    const op = this.#latencies.of(call.service, call.method, call.path);
    const key = operationKey(call);
    let refreshed = false;
    let timedOut = false;
    let firstSent: number | undefined;
    // What the request asks, by a digest: computed once an attempt fails.
    let digest: string | undefined;
    const identity = () => (digest ??= requestOf(call));
    for (let number = 1; ; number++) {
      // A closed client's pool is gone: an attempt would fail as a network error, six times over.
      if (this.#closed) throw new RunError('ABORTED', 'the client was closed', { service: call.service });
      const probing = this.#operations.pending(key);
      if (probing !== undefined) await untilAborted(probing, signal);
      const stopped = this.#operations.stopped(key);
      if (stopped !== undefined) throw stopped;
      const token = bearer ? await this.#token(signal) : undefined;
      const request = authorize(this.#p.auth, call, requestId, token);
      const sent = await this.#exchange.send(call.service, request, op, timedOut, signal);
      const attempt: Attempt = { ...sent, number, request, token };
      firstSent ??= sent.order;
      // Only an attempt without an answer needs its sending time kept (an answer's replaces it).
      if (sent.result.ok) this.#heard(call.service, sent);
      else this.#outages.sent(call.service, sent.sentAt);
      this.#storms.sent(call.service, sent.sentAt);
      if (sent.result.ok) {
        const { status } = sent.result;
        if (served(status)) this.#unserved.heard(call.service);
        else if (failing(status)) this.#unserved.unanswered(call.service, identity());
        this.#status(call, place, attempt);
      } else if (!NOT_DROPPED.has(sent.result.code)) this.#silent.unanswered(call.service, identity());
      const read = this.#read(call, attempt, place);
      if (read.done) {
        this.#operations.answered(key);
        return read.data;
      }
      if (read.failure.kind === 'timeout') timedOut = true;
      const canRefreshAuth = token !== undefined && !refreshed;
      const decision = decideRetry(read.failure, { attempt: number, canRefreshAuth }, this.#p.options.retry);
      this.#trace(requestId, attempt, decision.action);
      if (decision.action === 'refresh-auth') {
        refreshed = true;
        this.#tokens?.invalidate(token as string);
        continue;
      }
      await this.#act(decision, call, attempt, place, firstSent, identity, signal);
    }
  }

  /** An answer: the service is there; the log says so when requests had been waiting for it. */
  #heard(service: InterfaceName, sent: Sent): void {
    this.#silent.heard(service);
    const waitedSince = this.#outages.heard(service, sent.sentAt, sent.order);
    if (waitedSince === undefined) return;
    const waitedMs = Math.max(0, Date.now() - waitedSince);
    const message = `${SERVICE_LABEL[service]} answers again; requests that waited for it (up to ${Math.round(waitedMs / 1000)} s) go on`;
    this.#p.logger.info({ service, waitedMs }, message);
  }

  /** The answer's data, or what went wrong with the attempt. */
  #read<T>(call: Call<T>, attempt: Attempt, place: RequestPlace): Read<T> {
    const { result } = attempt;
    if (!result.ok) return { done: false, failure: result };
    if (result.status >= 200 && result.status < 300) {
      const json = parseJson(result.text);
      if (json === MALFORMED) return MALFORMED_READ;
      return { done: true, data: this.#parse(call, json, place, attempt.number, result.status) };
    }
    const data = call.fromStatus?.(result.status, result.text);
    if (data !== undefined) return { done: true, data };
    const retryAfter = result.headers['retry-after'];
    const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    return { done: false, failure: { kind: 'status', status: result.status, retryAfter: header } };
  }

  /**
   * Waits before the next attempt, or throws the error the decision calls for. `firstSent` is the
   * order its first attempt went out in: one out of retries in a silence since then waits.
   */
  async #act(
    decision: RetryDecision,
    call: Call<unknown>,
    attempt: Attempt,
    place: RequestPlace,
    firstSent: number,
    identity: () => string,
    signal?: AbortSignal,
  ) {
    const { metrics, auth, throttle } = this.#p;
    const { result, number } = attempt;
    const status = result.ok ? result.status : undefined;
    switch (decision.action) {
      case 'retry':
        metrics.retry(decision.cause);
        if (status === 429) this.#slowDown(call.service, attempt.sentAt, decision.retryAfterMs);
        else if (decision.retryAfterMs !== null) throttle.pause(call.service, decision.retryAfterMs);
        return this.#sleep(decision.delayMs, signal);
      case 'fatal': {
        metrics.fatal();
        // A 401 to a request that carried no credential says "missing", not "wrong".
        const missing = decision.code === 'AUTH_REJECTED' && !auth.has(call.service);
        const detail = result.ok ? errorDetail(result.text) : undefined;
        // Only a wait at or over the limit is fatal with a retryAfterMs, so the limit is set.
        const stopAtMs = this.#p.options.retry.stopOnRetryAfterMs ?? 0;
        throw fatalError(
          missing ? 'AUTH_MISSING' : decision.code,
          status,
          place,
          auth,
          number,
          detail,
          decision.retryAfterMs === undefined ? undefined : { retryAfterMs: decision.retryAfterMs, stopAtMs },
        );
      }
      case 'fail':
        if (result.ok && (result.status === 404 || result.status === 405 || result.status === 501))
          await this.#noSuchOperation(call, attempt, place, signal);
        throw statusError(status ?? 0, place, number, result.ok ? result.text : '');
      case 'exhausted': {
        const code = result.ok ? undefined : result.code;
        if (
          (code !== undefined && this.#unanswered(call, place, code, attempt, firstSent, identity())) ||
          (status !== undefined && this.#failing(call, place, status, attempt, firstSent, identity()))
        ) {
          // Jittered, so that the requests waiting together do not knock on it together.
          const pause = Math.min(WAIT_MS, this.#p.options.retry.maxDelayMs);
          return this.#sleep(pause / 2 + Math.random() * (pause / 2), signal);
        }
        const detail = result.ok ? errorDetail(result.text) : undefined;
        throw exhaustedError(decision.cause, status, code, place, number, attempt.timeoutMs, detail);
      }
      case 'refresh-auth':
        return;
    }
  }

  /** Sleeps before another attempt, woken by the call's signal or the client's close. */
  async #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.#p.retrySleeps.start();
    try {
      // Retries are rare: a signal joined per sleep costs nothing on the answered path.
      const closing = this.#closing.signal;
      await sleep(ms, signal === undefined ? closing : AbortSignal.any([signal, closing]));
    } finally {
      this.#p.retrySleeps.end();
    }
  }

  /**
   * One more request without an answer, its last attempt failing with `code`: throws
   * SERVICE_UNREACHABLE when that makes the interface's silence an outage (_outage.ts). Else
   * whether the request waits for the service rather than fails (Outages.waits): true for one
   * first sent in a silence of an interface that answered before; the first to wait logs it.
   */
  #unanswered(
    call: Call<unknown>,
    place: RequestPlace,
    code: string,
    attempt: Attempt,
    firstSent: number,
    request: string,
  ): boolean {
    const { result, sentAt, number, timeoutMs } = attempt;
    let silence: Silence;
    // A connect timeout never reached the service: it says what a refusal says.
    if (CONNECT_CODES.has(code)) silence = 'unconnected';
    else if (!result.ok && result.kind === 'timeout') silence = 'timed-out';
    else if (!result.ok && !NOT_DROPPED.has(code)) silence = 'dropped';
    else return false;
    const { service } = call;
    const { maxAttempts, outageMs } = this.#p.options.retry;
    if (number <= maxAttempts) {
      if (this.#outages.hung(service, silence, firstSent, request)) {
        // Refused: the service went between its attempts, nothing the request did.
        if (silence !== 'unconnected') this.#silent.poison(service, request);
        return false;
      }
      // Alone in the silence of an interface that answered: poison, not evidence (_distinct.ts).
      // A refused connection is evidence: no row gets itself refused.
      if (silence !== 'unconnected' && this.#silent.alone(service, request)) return false;
    }
    // Past its retries, the request is already waiting: counted once, when they ran out.
    const outage =
      number > maxAttempts
        ? this.#outages.stillSilent(service, silence, code, sentAt)
        : this.#outages.failed(service, silence, code, sentAt);
    if (outage !== undefined) {
      this.#p.metrics.fatal();
      throw unreachableError(place, call.base, outage, {
        attempts: Math.min(number, maxAttempts),
        timeoutMs,
      });
    }
    const waits = this.#outages.waits(service, firstSent, Date.now());
    if (waits === true) {
      const label = SERVICE_LABEL[service];
      const message = `${label} answers nothing (${code}): requests out of retries wait for it, an attempt a second, rather than fail; the run stops if it stays silent for ${outageMs / 1000} s (retry.outageMs), to be resumed`;
      this.#p.logger.warn({ service, code, outageMs }, message);
    }
    return waits !== false;
  }

  /**
   * An answered attempt, by its status (_storm.ts): one served ends an error storm (the log says
   * so when requests had been waiting for it); a 429 may warn that nothing but 429 has come for
   * `retry.outageMs`, or throw QUOTA_EXCEEDED once that has lasted PUSHBACK_STOP_FACTOR times it.
   */
  #status(call: Call<unknown>, place: RequestPlace, attempt: Attempt): void {
    const { result, sentAt, order, number } = attempt;
    if (!result.ok) return;
    const { service } = call;
    const { status } = result;
    if (served(status)) {
      const waitedSince = this.#storms.served(service, sentAt, order);
      if (waitedSince !== undefined) {
        const waitedMs = Math.max(0, Date.now() - waitedSince);
        const message = `${SERVICE_LABEL[service]} serves requests again; requests that waited for it (up to ${Math.round(waitedMs / 1000)} s) go on`;
        this.#p.logger.info({ service, waitedMs }, message);
      }
    }
    const pushback = this.#pushbacks.answered(service, status, sentAt);
    if (pushback === undefined) return;
    const rate = this.#p.throttle.rate(service);
    const { sinceMs, answers } = pushback;
    if (pushback.action === 'stop') {
      this.#p.metrics.fatal();
      throw rateLimitedError(place, sinceMs, answers, rate, number);
    }
    const at = rate === null ? '' : ` at ${Math.round(rate * 100) / 100}/s`;
    const stopS = this.#pushbacks.stopMs / 1000;
    const message = `${SERVICE_LABEL[service]} has answered only 429 (too many requests) for ${Math.round(sinceMs / 1000)} s${at}: nothing gets through; the run stops if it lasts ${stopS} s (${PUSHBACK_STOP_FACTOR} x retry.outageMs), to be resumed`;
    this.#p.logger.warn({ service, sinceMs, answers, rate }, message);
  }

  /**
   * A request out of retries on a 5xx (`status`): throws SERVICE_UNREACHABLE when the interface
   * has served nothing for `retry.outageMs` (_storm.ts). Else whether the request waits for the
   * service rather than fails: for a 502, 503 or 504 when nothing sent since its first attempt was
   * served; the first to wait logs it.
   */
  #failing(
    call: Call<unknown>,
    place: RequestPlace,
    status: number,
    attempt: Attempt,
    firstSent: number,
    request: string,
  ): boolean {
    if (!failing(status)) return false;
    const { service } = call;
    const { sentAt, number, timeoutMs } = attempt;
    const { maxAttempts, outageMs } = this.#p.options.retry;
    if (number <= maxAttempts) {
      // Served others sent after it: its 5xx are its own (a poison row), now and in its second pass.
      if (this.#storms.servedAround(service, firstSent)) {
        this.#unserved.poison(service, request);
        return false;
      }
      // Alone in the storm of an interface that served: no evidence either (_distinct.ts).
      if (this.#unserved.alone(service, request)) return false;
    }
    const storm = this.#storms.failed(service, status, sentAt, number > maxAttempts);
    if (storm !== undefined) {
      this.#p.metrics.fatal();
      throw stormError(place, call.base, storm, { attempts: Math.min(number, maxAttempts), timeoutMs });
    }
    if (!waitsOn(status)) {
      if (this.#storms.warns(service, Date.now())) {
        const message = `${SERVICE_LABEL[service]} answers only ${status}: its requests fail meanwhile (a ${status} may be one row's own); the run stops if it serves nothing for ${outageMs / 1000} s (retry.outageMs), to be resumed`;
        this.#p.logger.warn({ service, status, outageMs }, message);
      }
      return false;
    }
    const waits = this.#storms.waits(service, firstSent, Date.now());
    if (waits === true) {
      const message = `${SERVICE_LABEL[service]} answers only ${status}: requests out of retries wait for it rather than fail, the interface held a second at a time; the run stops if it serves nothing for ${outageMs / 1000} s (retry.outageMs), to be resumed`;
      this.#p.logger.warn({ service, status, outageMs }, message);
    }
    // Each waiting request knocks once a second, and the engine sends new ones while they sleep
    // (2,048 rows in the window knocked 1,250 times a second): the interface pauses instead, so
    // that about `concurrency` attempts go a second, whatever the number waiting.
    if (waits !== false) this.#p.throttle.hold(service, Math.min(WAIT_MS, this.#p.options.retry.maxDelayMs));
    return waits !== false;
  }

  /**
   * Throws ENDPOINT_NOT_FOUND when the attempt's 404 or 405 says the address has no such
   * operation (_missing.ts), asking the server about a path that cannot exist to tell.
   */
  async #noSuchOperation(
    call: Call<unknown>,
    attempt: Attempt,
    place: RequestPlace,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { result, request, number } = attempt;
    if (!result.ok) return;
    const answer: Answer = { status: result.status, text: result.text, path: request.path };
    const stop = () => {
      this.#p.metrics.fatal();
      const allow = result.headers.allow;
      const methods = Array.isArray(allow) ? allow.join(', ') : allow;
      return noSuchOperationError(place, call.base, call, result.status, number, result.text, methods);
    };
    const probe = () => this.#probe(call, attempt);
    const error = await this.#operations.missing(operationKey(call), answer, probe, stop, signal);
    if (error !== undefined) throw error;
  }

  /**
   * The attempt's request sent to a sibling of its path (probePath): the server's answer to a path
   * it does not have. It takes a throttle slot like any request (a run at `rate: 1` never sends
   * two in a second, and a distributed run's shared rate counts it), ahead of the requests queued
   * in the local limits, which may hold every request of the file; with the client's signal, not
   * the call's, since every call waiting for it reads its answer.
   */
  async #probe(call: Call<unknown>, attempt: Attempt): Promise<Answer | undefined> {
    const { throttle, http, metrics } = this.#p;
    const probe = { ...call, path: probePath(call.path) };
    const requestId = attempt.request.headers['x-request-id'] ?? '';
    const request = authorize(this.#p.auth, probe, requestId, attempt.token);
    const closing = this.#closing.signal;
    const wait = throttle.acquire(call.service, closing, true);
    if (wait !== undefined) {
      const waitStart = performance.now();
      await wait;
      metrics.throttleWait(performance.now() - waitStart);
    }
    const started = performance.now();
    // Every request of the operation waits for it: a server that drops unknown paths unanswered
    // must not hold them for a whole timeout, three times over.
    const timeoutMs = Math.min(attempt.timeoutMs, PROBE_TIMEOUT_MS);
    let result: Awaited<ReturnType<Http['send']>>;
    try {
      result = await http.send(request, closing, { timeoutMs });
    } finally {
      throttle.release(call.service);
    }
    const outcome = result.ok ? result.status : result.kind;
    metrics.request(call.service, outcome, performance.now() - started);
    if (result.ok)
      throttle.answered(call.service, result.status, result.headers['retry-after'] !== undefined);
    this.#log(requestId, request, result.ok ? result.status : result.code, 'probe');
    return result.ok ? { status: result.status, text: result.text, path: request.path } : undefined;
  }

  /** A 429: adapt the interface's rate, and tell the user once per cut (not once per request). */
  #slowDown(service: InterfaceName, sentAt: number, retryAfterMs: number | null): void {
    const rate = this.#p.throttle.onThrottled(service, sentAt, retryAfterMs);
    if (rate === undefined) return;
    const perSecond = Math.round(rate * 100) / 100;
    const message = `${service}: the service asked to slow down (429); rate now ${perSecond}/s`;
    this.#p.logger.info({ service, rate: perSecond, retryAfterMs }, message);
  }

  async #token(signal: AbortSignal | undefined): Promise<string> {
    const tokens = this.#tokens;
    if (tokens === undefined) throw new RunError('INTERNAL', 'the autocomplete token manager is not wired');
    return tokens.current() ?? (await tokens.refresh(signal));
  }

  #parse<T>(call: Call<T>, json: unknown, place: RequestPlace, attempts: number, status: number): T {
    try {
      return call.parse(json);
    } catch (error) {
      if (error instanceof ResponseError) {
        throw new ResponseError(error.message, { ...error.context, ...place, attempts, status });
      }
      if (error instanceof GeobatchError) {
        if (error.fatal) this.#p.metrics.fatal();
        throw error;
      }
      throw new ResponseError(`the ${place.service} answer could not be read`, {
        ...place,
        attempts,
        cause: error,
      });
    }
  }

  /** Failed attempts at debug; the URL only through redactUrl. */
  #trace(requestId: string, attempt: Attempt, action: string): void {
    const { logger } = this.#p;
    if (!logger.isLevelEnabled('debug')) return;
    const { request, result, number } = attempt;
    const outcome = result.ok ? result.status : result.code;
    const url = redactUrl(request.origin + request.path);
    logger.debug(
      { requestId, method: request.method, url, attempt: number, outcome, action },
      'attempt failed',
    );
  }

  /**
   * The ENDPOINT_NOT_FOUND probe at debug, as a failed attempt is: a request the user did not ask
   * for, which a server's access log shows, must be in geobatch's own. The URL through redactUrl.
   */
  #log(requestId: string, request: HttpRequest, outcome: number | string, action: 'probe'): void {
    const { logger } = this.#p;
    if (!logger.isLevelEnabled('debug')) return;
    const url = redactUrl(request.origin + request.path);
    logger.debug(
      { requestId, method: request.method, url, outcome, action },
      'probe sent: the answer of a path that cannot exist, to tell a wrong address from an unknown record',
    );
  }
}

/** An operation: its method and URL without the query. */
function operationKey(call: Call<unknown>): string {
  return `${call.method} ${call.base.origin}${call.base.prefix}${call.path}`;
}

/** One request by what it asks (a digest: a batch's body may be large), the same in a second pass. */
function requestOf(call: Call<unknown>): string {
  const what = `${operationKey(call)}?${call.query ?? ''}\n${call.body ?? ''}`;
  return createHash('sha256').update(what).digest('base64url');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return MALFORMED;
  }
}
