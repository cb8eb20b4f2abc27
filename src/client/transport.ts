/**
 * The one path every call takes: auth -> throttle -> http -> retry decision -> parse.
 *
 * The retry loop is written here rather than on p-retry: p-retry computes its own delay from
 * `minTimeout`/`factor` and has no way to take a per-attempt delay (Retry-After) from the failed
 * attempt, so honouring Retry-After would mean sleeping inside `onFailedAttempt` with p-retry's
 * own delay forced to zero. Fifteen lines of loop around `decideRetry` say the same thing plainly.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { GeobatchError, ResponseError, ServiceError } from '../errors.js';
import { redactUrl } from '../secrets.js';
import { sleep } from './_abort.js';
import type { RequestPlace } from './_failures.js';
import { errorDetail, exhaustedError, fatalError, statusError } from './_failures.js';
import type { Auth } from './auth.js';
import { SCHEME } from './auth.js';
import type { Http, HttpFailure, HttpRequest, HttpResponse } from './http.js';
import type { Metrics } from './metrics.js';
import type { InterfaceName, ResolvedOptions } from './options.js';
import type { AttemptFailure } from './retry.js';
import { decideRetry } from './retry.js';
import type { Throttle } from './throttle.js';
import type { TokenManager } from './token.js';

/** A base address split once into what undici wants. */
export interface Base {
  readonly origin: string;
  /** Path prefix without a trailing slash ('' for a bare origin). */
  readonly prefix: string;
}

export function splitBase(url: string): Base {
  const parsed = new URL(url);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '') };
}

/** One logical request; the transport retries it as one (same X-Request-Id). */
export interface Call<T> {
  readonly service: InterfaceName;
  readonly method: 'GET' | 'POST';
  readonly base: Base;
  /** Appended to the base prefix. */
  readonly path: string;
  /** Encoded query string without credentials and without '?'. */
  readonly query?: string;
  /** JSON text. */
  readonly body?: string;
  /** Checks and normalises a 2xx JSON answer; throws ResponseError. */
  readonly parse: (json: unknown) => T;
  /** Turns a non-2xx answer into data (geocoding's "no match" as an HTTP error), or undefined. */
  readonly fromStatus?: (status: number, text: string) => T | undefined;
}

export interface TransportParts {
  readonly options: ResolvedOptions;
  readonly http: Http;
  readonly throttle: Throttle;
  readonly auth: Auth;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

const MALFORMED: AttemptFailure = { kind: 'malformed' };

export class Transport {
  readonly #p: TransportParts;
  // Wired after construction: the token manager itself fetches through this transport.
  #tokens: TokenManager | undefined;
  readonly #idPrefix = randomBytes(4).toString('hex');
  #sequence = 0;

  constructor(parts: TransportParts) {
    this.#p = parts;
  }

  /** Gives the transport the bearer tokens of autocomplete. */
  useTokens(tokens: TokenManager): void {
    this.#tokens = tokens;
  }

  async call<T>(call: Call<T>, signal?: AbortSignal): Promise<T> {
    const { throttle, metrics, options } = this.#p;
    const place: RequestPlace = { service: call.service, endpoint: call.base.prefix + call.path };
    const requestId = `${this.#idPrefix}-${(++this.#sequence).toString(36)}`;
    const bearer = SCHEME[call.service] === 'bearer';
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const token = bearer ? await this.#token(signal) : undefined;
      const request = this.#request(call, requestId, token);
      const wait = throttle.acquire(call.service, signal);
      if (wait !== undefined) {
        const waitStart = performance.now();
        await wait;
        metrics.throttleWait(performance.now() - waitStart);
      }
      const sentAt = Date.now();
      const started = performance.now();
      let result: HttpResponse | HttpFailure;
      try {
        result = await this.#p.http.send(request, signal);
      } finally {
        throttle.release(call.service);
      }
      metrics.request(call.service, result.ok ? result.status : result.kind, performance.now() - started);

      let failure: AttemptFailure;
      if (!result.ok) failure = result;
      else {
        if (result.status >= 200 && result.status < 300) {
          const json = parseJson(result.text);
          if (json !== MALFORMED) return this.#parse(call, json, place, attempt, result.status);
          failure = MALFORMED;
        } else {
          const data = call.fromStatus?.(result.status, result.text);
          if (data !== undefined) return data;
          const retryAfter = result.headers['retry-after'];
          failure = { kind: 'status', status: result.status, retryAfter: first(retryAfter) };
        }
      }
      const canRefreshAuth = token !== undefined && !refreshed;
      const decision = decideRetry(failure, { attempt, canRefreshAuth }, options.retry);
      const status = result.ok ? result.status : undefined;
      this.#trace(requestId, request, attempt, result, decision.action);
      switch (decision.action) {
        case 'retry':
          metrics.retry(decision.cause);
          if (status === 429) this.#slowDown(call.service, sentAt, decision.retryAfterMs);
          else if (decision.retryAfterMs !== null) throttle.pause(call.service, decision.retryAfterMs);
          await sleep(decision.delayMs, signal);
          continue;
        case 'refresh-auth':
          refreshed = true;
          this.#tokens?.invalidate(token as string);
          continue;
        case 'fatal': {
          metrics.fatal();
          const { auth } = this.#p;
          // A 401 to a request that carried no credential says "missing", not "wrong".
          const code =
            decision.code === 'AUTH_REJECTED' && !auth.has(call.service) ? 'AUTH_MISSING' : decision.code;
          throw fatalError(code, status, place, auth, attempt, detailOf(result));
        }
        case 'fail':
          throw statusError(status ?? 0, place, attempt, result.ok ? result.text : '');
        case 'exhausted':
          throw exhaustedError(
            decision.cause,
            status,
            result.ok ? undefined : result.code,
            place,
            attempt,
            options.timeoutMs,
          );
      }
    }
  }

  /** A 429: adapt the interface's rate, and tell the user once per cut (not once per request). */
  #slowDown(service: InterfaceName, sentAt: number, retryAfterMs: number | null): void {
    const rate = this.#p.throttle.onThrottled(service, sentAt, retryAfterMs);
    if (rate === undefined) return;
    const perSecond = Math.round(rate * 100) / 100;
    this.#p.logger.info(
      { service, rate: perSecond, retryAfterMs },
      `${service}: the service asked to slow down (429); rate now ${perSecond}/s`,
    );
  }

  async #token(signal: AbortSignal | undefined): Promise<string> {
    const tokens = this.#tokens;
    if (tokens === undefined)
      throw new ServiceError('INTERNAL', 'the autocomplete token manager is not wired');
    return tokens.current() ?? (await tokens.refresh(signal));
  }

  #request(call: Call<unknown>, requestId: string, token: string | undefined): HttpRequest {
    const { auth } = this.#p;
    const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': requestId };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const scheme = SCHEME[call.service];
    let query = call.query ?? '';
    if (scheme === 'key' && auth.keyQuery !== '')
      query = query === '' ? auth.keyQuery : `${query}&${auth.keyQuery}`;
    else if (scheme === 'basic' && auth.basicHeader !== undefined) headers.authorization = auth.basicHeader;
    else if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const path = call.base.prefix + call.path + (query === '' ? '' : `?${query}`);
    return { origin: call.base.origin, path, method: call.method, headers, body: call.body };
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

  #trace(
    id: string,
    request: HttpRequest,
    attempt: number,
    result: HttpResponse | HttpFailure,
    action: string,
  ) {
    const { logger } = this.#p;
    if (!logger.isLevelEnabled('debug')) return;
    const outcome = result.ok ? result.status : result.code;
    const url = redactUrl(request.origin + request.path);
    logger.debug({ requestId: id, method: request.method, url, attempt, outcome, action }, 'attempt failed');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return MALFORMED;
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function detailOf(result: HttpResponse | HttpFailure): Record<string, string> | undefined {
  return result.ok ? errorDetail(result.text) : undefined;
}
