/**
 * The retry policy: one pure function that decides, for a failed attempt, whether and when to try
 * again. Everything that waits or counts lives in transport.ts; this file only decides.
 *
 * The order is fixed and is the policy: error kind -> status -> attempts left -> Retry-After ->
 * exponential backoff with full jitter. A status that no retry can change (bad request, bad key,
 * no quota) is decided before the attempt budget is even looked at, so it is never retried.
 */

/** What went wrong with one attempt. */
export interface AttemptFailure {
  /**
   * `malformed`: a 2xx whose body is not JSON. Retried: a truncated body is a transport accident
   * (a connection cut mid-body by a proxy or a restarting server), not the service's answer, and
   * every operation we send is a read, so asking again is safe and usually succeeds.
   */
  readonly kind: 'network' | 'timeout' | 'malformed' | 'status';
  /** The HTTP status, for `status`. */
  readonly status?: number;
  /** The raw Retry-After header, if the answer had one. */
  readonly retryAfter?: string | undefined;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  /** A Retry-After at least this long stops the run; `null` or absent: none does. @default never */
  readonly stopOnRetryAfterMs?: number | null;
}

/** Why an attempt is retried; the metrics count retries by these. */
export type RetryCause = 'network' | 'timeout' | 'malformed' | '408' | '429' | '500' | '502' | '503' | '504';

export type FatalStatusCode = 'AUTH_REJECTED' | 'AUTH_MISSING' | 'QUOTA_EXCEEDED';

export type RetryDecision =
  /** Wait `delayMs`, then try again. `retryAfterMs` is the (clamped) wait the service demanded. */
  | {
      readonly action: 'retry';
      readonly cause: RetryCause;
      readonly delayMs: number;
      readonly retryAfterMs: number | null;
    }
  /** A 401 with a bearer token that was never refreshed: refresh it and try once more at once. */
  | { readonly action: 'refresh-auth' }
  /** No request to this service can succeed: stop the run. */
  | {
      readonly action: 'fatal';
      readonly code: FatalStatusCode;
      /** A Retry-After too long to wait for (stopOnRetryAfterMs), in ms: when to resume. */
      readonly retryAfterMs?: number;
    }
  /**
   * This request cannot succeed (400, 404, 422...): fail it, keep the run going. A 404 or 405 that
   * says the address has no such operation stops the run instead (transport.ts, _missing.ts).
   */
  | { readonly action: 'fail' }
  /** A transient failure outlasted the attempt budget. */
  | { readonly action: 'exhausted'; readonly cause: RetryCause };

export interface AttemptState {
  /** Attempts made so far, this one included (>= 1). */
  readonly attempt: number;
  /** True when the credential is a token the client can fetch again, and has not yet for this request. */
  readonly canRefreshAuth: boolean;
}

const RETRYABLE_STATUS: Readonly<Record<number, RetryCause>> = {
  408: '408',
  429: '429',
  500: '500',
  502: '502',
  503: '503',
  504: '504',
};

const FATAL_STATUS: Readonly<Record<number, FatalStatusCode>> = {
  401: 'AUTH_REJECTED',
  402: 'QUOTA_EXCEEDED',
  403: 'AUTH_REJECTED',
  412: 'AUTH_MISSING',
};

/** Decides what to do after a failed attempt. Pure: the clock and the dice are parameters. */
export function decideRetry(
  failure: AttemptFailure,
  state: AttemptState,
  policy: RetryPolicy,
  now: number = Date.now(),
  random: () => number = Math.random,
): RetryDecision {
  // 1. error kind
  let cause: RetryCause | undefined;
  if (failure.kind !== 'status') cause = failure.kind;
  else {
    // 2. status
    const status = failure.status ?? 0;
    if (status === 401 && state.canRefreshAuth) return { action: 'refresh-auth' };
    const fatal = FATAL_STATUS[status];
    if (fatal !== undefined) return { action: 'fatal', code: fatal };
    cause = RETRYABLE_STATUS[status];
    if (cause === undefined) return { action: 'fail' };
  }
  // 3. A wait longer than the run waits is a quota's, whatever attempts are left: stop, say when.
  const demanded = parseRetryAfter(failure.retryAfter, now);
  const stopAt = policy.stopOnRetryAfterMs ?? null;
  if (demanded !== null && stopAt !== null && demanded >= stopAt)
    return { action: 'fatal', code: 'QUOTA_EXCEEDED', retryAfterMs: demanded };
  // 4. attempts left
  if (state.attempt >= policy.maxAttempts) return { action: 'exhausted', cause };
  // 5. Retry-After: never undercut; jitter only adds, so a herd told to wait does not return at once.
  if (demanded !== null) {
    const retryAfterMs = Math.min(demanded, policy.maxRetryAfterMs);
    return { action: 'retry', cause, retryAfterMs, delayMs: retryAfterMs + random() * policy.baseDelayMs };
  }
  // 6. exponential backoff, full jitter (AWS architecture blog, "Exponential Backoff And Jitter").
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (state.attempt - 1));
  return { action: 'retry', cause, retryAfterMs: null, delayMs: random() * cap };
}

const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;
// RFC 9110 HTTP-date: IMF-fixdate, obsolete RFC 850 and asctime forms.
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * The wait a Retry-After header demands, in ms from `now`: delta-seconds or an HTTP-date (a date
 * in the past demands 0). `null` when absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) return Number(text) * 1000;
  let date = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) date = Date.parse(text);
  // asctime carries no zone; Date.parse would read it as local time.
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text} GMT`);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
