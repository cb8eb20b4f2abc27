import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../src/client/retry.js';
import { decideRetry, parseRetryAfter } from '../../src/client/retry.js';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const first = { attempt: 1, canRefreshAuth: false };
const dice = (value: number) => () => value;

function status(code: number, retryAfter?: string) {
  return { kind: 'status' as const, status: code, retryAfter };
}

describe('decideRetry: error kind and status', () => {
  it.each([
    ['network', 'network'],
    ['timeout', 'timeout'],
    ['malformed', 'malformed'],
  ] as const)('retries a %s failure as cause %s', (kind, cause) => {
    const decision = decideRetry({ kind }, first, policy, NOW, dice(0.5));
    expect(decision).toMatchObject({ action: 'retry', cause });
  });

  it.each([408, 429, 500, 502, 503, 504])('retries status %i', (code) => {
    expect(decideRetry(status(code), first, policy, NOW, dice(0.5))).toMatchObject({
      action: 'retry',
      cause: String(code),
    });
  });

  it.each([400, 404, 405, 409, 410, 422, 501, 505, 302])(
    'fails status %i for good without a retry',
    (code) => {
      expect(decideRetry(status(code), first, policy, NOW)).toEqual({ action: 'fail' });
    },
  );

  it.each([
    [401, 'AUTH_REJECTED'],
    [403, 'AUTH_REJECTED'],
    [402, 'QUOTA_EXCEEDED'],
    [412, 'AUTH_MISSING'],
  ])('treats status %i as fatal %s, even with attempts and a Retry-After left', (code, fatal) => {
    expect(decideRetry(status(code, '1'), first, policy, NOW)).toEqual({ action: 'fatal', code: fatal });
  });

  it('asks for one token refresh on a 401 when the credential is a refreshable token', () => {
    expect(decideRetry(status(401), { attempt: 1, canRefreshAuth: true }, policy, NOW)).toEqual({
      action: 'refresh-auth',
    });
    expect(decideRetry(status(403), { attempt: 1, canRefreshAuth: true }, policy, NOW)).toEqual({
      action: 'fatal',
      code: 'AUTH_REJECTED',
    });
  });

  it('declares a permanent status before looking at the attempt budget', () => {
    expect(decideRetry(status(400), { attempt: 99, canRefreshAuth: false }, policy, NOW)).toEqual({
      action: 'fail',
    });
  });
});

describe('decideRetry: attempts left', () => {
  it('gives up after maxAttempts, naming the last cause', () => {
    const last = { attempt: policy.maxAttempts, canRefreshAuth: false };
    expect(decideRetry(status(503, '1'), last, policy, NOW)).toEqual({ action: 'exhausted', cause: '503' });
    expect(decideRetry({ kind: 'timeout' }, last, policy, NOW)).toEqual({
      action: 'exhausted',
      cause: 'timeout',
    });
  });

  it('still retries on the attempt before the last', () => {
    const state = { attempt: policy.maxAttempts - 1, canRefreshAuth: false };
    expect(decideRetry({ kind: 'network' }, state, policy, NOW, dice(0)).action).toBe('retry');
  });
});

describe('decideRetry: Retry-After', () => {
  it('waits the delta-seconds the service demands, plus only added jitter', () => {
    expect(decideRetry(status(429, '2'), first, policy, NOW, dice(0))).toMatchObject({
      delayMs: 2000,
      retryAfterMs: 2000,
    });
    expect(decideRetry(status(429, '2'), first, policy, NOW, dice(0.999))).toMatchObject({
      delayMs: 2000 + 0.999 * policy.baseDelayMs,
      retryAfterMs: 2000,
    });
  });

  it('waits until an HTTP-date, counted from now', () => {
    const date = new Date(NOW + 3000).toUTCString();
    expect(decideRetry(status(503, date), first, policy, NOW, dice(0))).toMatchObject({ delayMs: 3000 });
  });

  it('stops at a demand at least stopOnRetryAfterMs long, attempts left or not, and says how long', () => {
    const stopping = { ...policy, stopOnRetryAfterMs: 600_000 };
    expect(decideRetry(status(429, '3600'), first, stopping, NOW, dice(0))).toEqual({
      action: 'fatal',
      code: 'QUOTA_EXCEEDED',
      retryAfterMs: 3_600_000,
    });
    expect(decideRetry(status(503, '600'), first, stopping, NOW, dice(0))).toMatchObject({ action: 'fatal' });
    // Shorter than that: clamped to maxRetryAfterMs, as without the option.
    expect(decideRetry(status(429, '599'), first, stopping, NOW, dice(0))).toMatchObject({
      action: 'retry',
      retryAfterMs: policy.maxRetryAfterMs,
    });
  });

  it('stops at any demand with stopOnRetryAfterMs 0, and at none with null', () => {
    const any = { ...policy, stopOnRetryAfterMs: 0 };
    expect(decideRetry(status(429, '0'), first, any, NOW, dice(0))).toMatchObject({
      action: 'fatal',
      code: 'QUOTA_EXCEEDED',
      retryAfterMs: 0,
    });
    const never = { ...policy, stopOnRetryAfterMs: null };
    expect(decideRetry(status(429, '86400'), first, never, NOW, dice(0))).toMatchObject({
      action: 'retry',
      retryAfterMs: policy.maxRetryAfterMs,
    });
    const last = { attempt: policy.maxAttempts, canRefreshAuth: false };
    expect(decideRetry(status(503, '86400'), last, never, NOW, dice(0))).toEqual({
      action: 'exhausted',
      cause: '503',
    });
  });

  it('clamps a demand longer than maxRetryAfterMs', () => {
    expect(decideRetry(status(429, '3600'), first, policy, NOW, dice(0))).toMatchObject({
      delayMs: policy.maxRetryAfterMs,
      retryAfterMs: policy.maxRetryAfterMs,
    });
  });

  it('falls back to backoff when the header is garbage', () => {
    expect(decideRetry(status(429, 'soon, please'), first, policy, NOW, dice(0.5))).toMatchObject({
      retryAfterMs: null,
      delayMs: 0.5 * policy.baseDelayMs,
    });
  });
});

describe('decideRetry: backoff', () => {
  it('draws from 0 up to base * 2^(attempt-1), capped at maxDelayMs (full jitter)', () => {
    const at = (attempt: number, r: number) =>
      decideRetry(
        { kind: 'network' },
        { attempt, canRefreshAuth: false },
        { ...policy, maxAttempts: 99 },
        NOW,
        dice(r),
      );
    expect(at(1, 1)).toMatchObject({ delayMs: 100 });
    expect(at(2, 1)).toMatchObject({ delayMs: 200 });
    expect(at(3, 0.5)).toMatchObject({ delayMs: 200 });
    expect(at(10, 1)).toMatchObject({ delayMs: 1000 });
    expect(at(10, 0)).toMatchObject({ delayMs: 0 });
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds, including 0 and a decimal', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 7 ', NOW)).toBe(7000);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
  });

  it('reads the three HTTP-date forms, and a past date as no wait', () => {
    expect(parseRetryAfter('Thu, 15 Jan 2026 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Thursday, 15-Jan-26 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Thu Jan 15 12:00:05 2026', NOW)).toBe(5000);
    expect(parseRetryAfter('Thu, 15 Jan 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('returns null for an absent, negative or unreadable value', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter('-5', NOW)).toBeNull();
    expect(parseRetryAfter('', NOW)).toBeNull();
    expect(parseRetryAfter('tomorrow', NOW)).toBeNull();
    expect(parseRetryAfter('2026-01-15T12:00:05Z', NOW)).toBeNull();
  });
});
