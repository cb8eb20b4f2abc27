/**
 * The autocomplete bearer token: fetched on first use, cached, refreshed shortly before it
 * expires and once when the service rejects it, with every concurrent caller sharing one fetch.
 *
 * The token endpoint answers a bare string, no lifetime. The expiry is therefore taken as the
 * moment the fetch was *sent* plus the configured TTL, minus a skew: sending time, not arrival
 * time, because the service's clock started no later than that.
 */
import { SecretSet } from '../secrets.js';
import { untilAborted } from './_abort.js';

export interface TokenManagerOptions {
  /** Fetches a new token (with the transport's retries). Must not depend on one caller's signal. */
  readonly fetch: () => Promise<string>;
  readonly ttlMs: number;
  readonly skewMs: number;
  readonly now?: () => number;
  /** Called with every new token. */
  readonly onToken?: (token: string) => void;
  /**
   * Where the tokens are registered as secrets: the current one and the one before it (which
   * answers may still quote) are scrubbed, older ones released. @default a set of the manager's own
   */
  readonly secrets?: SecretSet;
}

export class TokenManager {
  readonly #options: TokenManagerOptions;
  readonly #now: () => number;
  #token: string | undefined;
  #refreshAt = 0;
  #inflight: Promise<string> | undefined;
  readonly #secrets: SecretSet;
  /** The tokens registered as secrets, oldest first: the latest two. */
  readonly #kept: string[] = [];

  constructor(options: TokenManagerOptions) {
    this.#options = options;
    this.#secrets = options.secrets ?? new SecretSet();
    this.#now = options.now ?? (() => Date.now());
  }

  /** The cached token while it is fresh, else undefined (then call `refresh`). */
  current(): string | undefined {
    if (this.#token !== undefined && this.#now() < this.#refreshAt) return this.#token;
    return undefined;
  }

  /** A fresh token; concurrent callers share one fetch, and one caller's abort ends only its wait. */
  refresh(signal?: AbortSignal): Promise<string> {
    const fresh = this.current();
    if (fresh !== undefined) return Promise.resolve(fresh);
    if (this.#inflight === undefined) {
      const sentAt = this.#now();
      this.#inflight = this.#options.fetch().then(
        (token) => {
          this.#keep(token);
          this.#token = token;
          this.#refreshAt = sentAt + this.#options.ttlMs - this.#options.skewMs;
          this.#inflight = undefined;
          this.#options.onToken?.(token);
          return token;
        },
        (error: unknown) => {
          this.#inflight = undefined;
          throw error;
        },
      );
    }
    return signal === undefined ? this.#inflight : untilAborted(this.#inflight, signal);
  }

  /** Registers `token` as a secret, releasing all but it and the one before it. */
  #keep(token: string): void {
    if (this.#kept.includes(token)) return;
    this.#secrets.add(token);
    this.#kept.push(token);
    while (this.#kept.length > 2) this.#secrets.release(this.#kept.shift() as string);
  }

  /** The service rejected `token`: forget it, unless another caller already replaced it. */
  invalidate(token: string): void {
    if (this.#token === token) {
      this.#token = undefined;
      this.#refreshAt = 0;
    }
  }
}
