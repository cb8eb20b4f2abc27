/** The reorder window: rows read and not yet written, in input order, as a ring buffer. */
import type { Outcome, ReadItem } from '../types.js';
import type { OpenBatch } from './_batcher.js';
import type { ItemResult } from './job.js';

/** One row in the window. */
export interface Slot {
  readonly item: ReadItem;
  /** Answers by plan position, until rendered. */
  results: ItemResult<unknown>[] | undefined;
  /** Answers still awaited. */
  pending: number;
  /** Requests the row waits on (to flush the head row's partial batch). */
  flights: Flight[];
  outcome: Outcome | undefined;
  /** Its estimated size in memory, counted against the window's byte budget. */
  bytes: number;
}

/** One unique item in flight; identical items of other rows wait on it. */
export interface Flight {
  readonly key: string;
  readonly item: unknown;
  /** The input row (RowRef.index) that first needed it: the answer cache counts it on its behalf. */
  readonly row: number;
  /** Pairs of (slot, plan position), flattened to avoid an object per waiter. */
  readonly waiters: (Slot | number)[];
  batch: OpenBatch | undefined;
}

/** Shared by every row that waits on no request (a new array is made for a row that does). */
export const NO_FLIGHTS: Flight[] = [];

export class Slots {
  private ring: (Slot | undefined)[] = new Array(16);
  private start = 0;
  size = 0;

  push(item: ReadItem): Slot {
    if (this.size === this.ring.length) this.grow();
    const slot: Slot = {
      item,
      results: undefined,
      pending: 0,
      flights: NO_FLIGHTS,
      outcome: undefined,
      bytes: 0,
    };
    this.ring[(this.start + this.size) % this.ring.length] = slot;
    this.size++;
    return slot;
  }

  head(): Slot | undefined {
    return this.size === 0 ? undefined : this.ring[this.start];
  }

  shift(): void {
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.ring.length;
    this.size--;
  }

  /** Doubles as the window grows; its bounds (rows waiting for answers, bytes) keep that to a few times. */
  private grow(): void {
    const next: (Slot | undefined)[] = new Array(this.ring.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.ring[(this.start + i) % this.ring.length];
    this.ring = next;
    this.start = 0;
  }
}
