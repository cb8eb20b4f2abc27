/**
 * The demo credentials and how each interface checks them (EMULATOR-API.md "Auth").
 * Comparisons are constant-time so that the emulator does not model a timing leak.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Reply, serviceError } from './_http.js';
import type { EmulatorCredentials } from './types.js';

export const DEFAULT_CREDENTIALS: EmulatorCredentials = {
  partner: 'demo-partner',
  partnerKey: 'demo-partner-key',
  apiKey: 'demo-api-key',
  systemPartner: 'demo-system',
  securityID: 'demo-security-id',
};

export type Check = 'ok' | 'missing' | 'wrong';
export type TokenCheck = 'ok' | 'missing' | 'unknown' | 'expired';

/**
 * Area and elevation (EMULATOR CHOICE, the spec shows no codes): no key and a wrong key are both
 * 401. Null when the key is good.
 */
export function apiKeyDenied(check: Check): Reply | null {
  if (check === 'ok') return null;
  return serviceError(401, 'UNAUTHORIZED', check === 'missing' ? 'apiKey fehlt.' : 'apiKey ist ungültig.');
}

export function basicHeader(c: EmulatorCredentials): string {
  return `Basic ${Buffer.from(`${c.partner}:${c.partnerKey}`).toString('base64')}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Auth {
  readonly credentials: EmulatorCredentials;
  readonly #ttlMs: number;
  /** token -> issue time; insertion order = issue order, so expiry pruning looks at the front only. */
  readonly #tokens = new Map<string, number>();
  readonly #onIssue: () => void;

  constructor(credentials: EmulatorCredentials, tokenTtlSeconds: number, onIssue: () => void) {
    this.credentials = credentials;
    this.#ttlMs = tokenTtlSeconds * 1000;
    this.#onIssue = onIssue;
  }

  /** Address search: the Authorization header's Basic credentials. */
  basic(headers: IncomingHttpHeaders): Check {
    const header = headers.authorization;
    if (!header || !/^basic\s+/i.test(header)) return 'missing';
    return same(header.replace(/^basic\s+/i, '').trim(), basicHeader(this.credentials).slice(6))
      ? 'ok'
      : 'wrong';
  }

  /** Everything else: `apiKey`, or the legacy `systemPartner` + `securityID` pair, in the query. */
  apiKey(query: URLSearchParams): Check {
    const key = query.get('apiKey');
    const partner = query.get('systemPartner');
    const security = query.get('securityID');
    if (key) return same(key, this.credentials.apiKey) ? 'ok' : 'wrong';
    if (!partner && !security) return 'missing';
    return partner &&
      security &&
      same(partner, this.credentials.systemPartner) &&
      same(security, this.credentials.securityID)
      ? 'ok'
      : 'wrong';
  }

  issueToken(now = Date.now()): string {
    this.#prune(now);
    const token = randomBytes(24).toString('base64url');
    this.#tokens.set(token, now);
    this.#onIssue();
    return token;
  }

  /** Autocomplete: `Authorization: Bearer <token>` or the `AuthToken` query parameter. */
  bearer(headers: IncomingHttpHeaders, query: URLSearchParams, now = Date.now()): TokenCheck {
    const header = headers.authorization;
    const token =
      header && /^bearer\s+/i.test(header)
        ? header.replace(/^bearer\s+/i, '').trim()
        : query.get('AuthToken');
    if (!token) return 'missing';
    const issued = this.#tokens.get(token);
    if (issued === undefined) return 'unknown';
    return now - issued > this.#ttlMs ? 'expired' : 'ok';
  }

  #prune(now: number): void {
    // Expired tokens are forgotten lazily; a few TTLs of grace keep "expired" distinguishable from "unknown".
    for (const [token, issued] of this.#tokens) {
      if (now - issued <= this.#ttlMs * 4 + 60_000) break;
      this.#tokens.delete(token);
    }
  }
}
