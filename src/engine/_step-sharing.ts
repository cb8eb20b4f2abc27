/**
 * What the steps of one pipeline that ask the same questions share: steps whose items the request
 * cache would keep under one scope (two geocode steps whose options change no answer, one for
 * each end of a route) buy an identical item once. Each step is an engine of its own, whose dedup
 * ended at the step, and the request cache answers only once an answer is stored: two geocode
 * steps over the same 30 addresses (300 rows) sent 48 geocodes with a fresh cache, and 60 without
 * one. So such steps share
 *
 * - their dedup memory (one Lru for the group, bounded as one step's: `dedupCacheSize`), and
 * - their items in flight: an item another step of the group has in flight waits for its answer
 *   instead of being sent. An answer dedup would remember (cacheable) is the waiter's, counted as
 *   dedup; a failure it would not (a transient one) lets the waiter ask on its own, as does a
 *   step that stops or holds its unsent requests (a stop's drain) without an answer.
 *
 * Only what is in flight is held: an entry goes when its flight settles or is let go. A waiter
 * never waits on a waiter (entries are owners only), so waits cannot close a circle, and a step
 * whose head row waits on another step's partial batch sends that batch (`flush`), as it does its
 * own: a first step suspended until a later one takes its rows lingers its batches otherwise.
 */
import type { Lru } from './_lru.js';
import type { Flight } from './_slots.js';
import type { ItemResult } from './job.js';

/** A step's side of the sharing (the engine's Requests). */
export interface Sharer {
  /** The owner settled or let go of a flight this step waits on: its answer if it is to share. */
  fromOther(flight: Flight, result: ItemResult<unknown> | undefined): void;
  /** Sends now the partial batch holding this flight of its own. */
  flushOwn(flight: Flight): void;
}

/** A flight another step of the group waits on. */
export interface Owned {
  readonly owner: Sharer;
  readonly flight: Flight;
  /** Pairs of (waiting step, its flight). */
  readonly waiters: (Sharer | Flight)[];
}

/** One scope's steps: their dedup memory and their items in flight. */
export class SharedAnswers {
  private remembered: Lru<string, ItemResult<unknown>> | undefined;
  private readonly flying = new Map<string, Owned>();

  /** The group's dedup memory, made by the first step that asks, at its bounds. */
  memory(make: () => Lru<string, ItemResult<unknown>>): Lru<string, ItemResult<unknown>> {
    this.remembered ??= make();
    return this.remembered;
  }

  /** The flight of this key in flight in a step of the group, if any. */
  inFlight(key: string): Owned | undefined {
    return this.flying.get(key);
  }

  /** `flight` is in flight in `owner`: identical items of the other steps wait on it. */
  claim(owner: Sharer, flight: Flight): void {
    this.flying.set(flight.key, { owner, flight, waiters: [] });
  }

  join(owned: Owned, waiter: Sharer, flight: Flight): void {
    owned.waiters.push(waiter, flight);
  }

  /**
   * `flight` settled (`result`, which the waiters take if `share`) or was let go (undefined): its
   * waiters take the answer or go on alone. A flight that is no entry's owner changes nothing.
   */
  settled(flight: Flight, result: ItemResult<unknown> | undefined): void {
    const owned = this.flying.get(flight.key);
    if (owned?.flight !== flight) return;
    this.flying.delete(flight.key);
    const w = owned.waiters;
    for (let i = 0; i < w.length; i += 2) (w[i] as Sharer).fromOther(w[i + 1] as Flight, result);
  }

  /** The flights `owner` holds that `keep` does not keep: let go (a step stopping or holding). */
  letGo(owner: Sharer, keep: (flight: Flight) => boolean = () => false): void {
    const gone: Flight[] = [];
    for (const owned of this.flying.values())
      if (owned.owner === owner && !keep(owned.flight)) gone.push(owned.flight);
    for (const flight of gone) this.settled(flight, undefined);
  }
}

/** A pipeline's groups, by scope: made per run of the steps, so nothing outlives it. */
export class StepSharing {
  private readonly groups = new Map<string, SharedAnswers>();

  group(scope: string): SharedAnswers {
    let group = this.groups.get(scope);
    if (group === undefined) {
      group = new SharedAnswers();
      this.groups.set(scope, group);
    }
    return group;
  }
}
