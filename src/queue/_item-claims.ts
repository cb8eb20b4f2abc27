/**
 * Items the workers of a run are buying, claimed in the queue database so that a worker does not
 * buy an item another worker is already buying: it waits for that answer to reach the shared
 * request cache instead (_shared-flights.ts waits; this module keeps the table).
 *
 * Every claim of a run takes the same transaction-scoped advisory lock (the database function
 * claim_items, _schema.ts), so claims are made one at a time across all workers, each lookup's
 * items at once: a lookup can only find items claimed
 * by an earlier one, and waits therefore never close a circle (the argument _shared-flights.ts
 * makes for the chunks of one worker, carried over to all of them). A claim ends when its owner
 * lets it go (its answer is in the cache, it failed, or the chunk ended), or CLAIM_MS after it was
 * made or last renewed. Its owner renews it while the item's request is still to come (held back
 * by a low rate or a Retry-After pause, retried, or slow), so only an owner that died lets a
 * claim lapse: that costs a second purchase, never a row. Times are the database's clock, the
 * one clock all workers share.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { SCHEMA } from './_schema.js';

/** How long a claim holds after it was made or renewed, without its owner letting go. */
export const CLAIM_MS = 10_000;

/** Expired claims of dead owners are swept when a chunk ends, this long after they expired. */
const SWEEP_AFTER = '1 minute';

const TABLE = `${SCHEMA}.item_claims`;

/** Deletes a run's claims (its id the one parameter): with the run, which holds no key to them. */
export const dropClaims = `DELETE FROM ${TABLE} WHERE run = $1`;

export interface ItemClaims {
  /** Claims these keys for `owner`; resolves to those another owner holds. */
  claim(owner: string, keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** Of these keys, those some owner still holds. */
  held(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** Lets go of the owner's claims on these keys, or of all of them. */
  release(owner: string, keys?: readonly string[]): Promise<void>;
  /** Holds the owner's claims on these keys, those that have not lapsed, `claimMs` from now. */
  renew(owner: string, keys: readonly string[]): Promise<void>;
  /** How long a claim holds after it was made or renewed. */
  readonly claimMs: number;
}

/**
 * What the table keeps of an item's key: a hash, of one size whatever the item (a long address
 * would not fit an index row) and without the item's data in one more place.
 */
function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/** The keys by their digests. */
function digests(keys: readonly string[]): Map<string, string> {
  return new Map(keys.map((key) => [digest(key), key]));
}

/** `claimMs`: CLAIM_MS but in tests, which cannot wait for the database's clock. */
export function itemClaims(pool: pg.Pool, run: string, claimMs = CLAIM_MS): ItemClaims {
  return {
    claimMs,
    async claim(owner, keys) {
      const byDigest = digests(keys);
      // Sorted: two claims of one run never wait on each other's rows in opposite orders.
      const wanted = [...byDigest.keys()].sort();
      if (wanted.length === 0) return new Set();
      const got = await pool.query<{ key: string }>(`SELECT ${SCHEMA}.claim_items($1, $2, $3, $4) AS key`, [
        run,
        wanted,
        owner,
        claimMs / 1000,
      ]);
      const mine = new Set(got.rows.map((row) => row.key));
      return new Set([...byDigest].filter(([hash]) => !mine.has(hash)).map(([, key]) => key));
    },
    async held(keys) {
      if (keys.length === 0) return new Set();
      const byDigest = digests(keys);
      const rows = await pool.query<{ key: string }>(
        `SELECT key FROM ${TABLE} WHERE run = $1 AND key = ANY($2::text[]) AND until > clock_timestamp()`,
        [run, [...byDigest.keys()]],
      );
      return new Set(rows.rows.map((row) => byDigest.get(row.key) as string));
    },
    async renew(owner, keys) {
      if (keys.length === 0) return;
      // A lapsed claim stays lapsed: a waiting owner may have taken the item over already.
      await pool.query(
        `UPDATE ${TABLE} SET until = clock_timestamp() + make_interval(secs => $4)
          WHERE run = $1 AND key = ANY($3::text[]) AND owner = $2 AND until > clock_timestamp()`,
        [run, owner, keys.map(digest), claimMs / 1000],
      );
    },
    async release(owner, keys) {
      if (keys === undefined) {
        await pool.query(
          `DELETE FROM ${TABLE} WHERE run = $1 AND (owner = $2 OR until < clock_timestamp() - interval '${SWEEP_AFTER}')`,
          [run, owner],
        );
      } else if (keys.length > 0) {
        await pool.query(`DELETE FROM ${TABLE} WHERE run = $1 AND owner = $2 AND key = ANY($3::text[])`, [
          run,
          owner,
          keys.map(digest),
        ]);
      }
    },
  };
}
