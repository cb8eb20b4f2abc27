/**
 * Packs items into requests per the job's Batching: by group, up to `maxItems` and `maxWeight`,
 * flushed after `lingerMs` of waiting for input (unless told not to linger) or on demand (the
 * window is full and the head-of-line row waits in it, or the input ended).
 */
import { UsageError } from '../errors.js';
import type { Batching } from './job.js';

export interface Batchable {
  readonly item: unknown;
  /** The open batch holding this member, until it is closed. */
  batch: OpenBatch | undefined;
}

export interface OpenBatch {
  readonly group: string;
  readonly members: Batchable[];
  weight: number;
  timer: NodeJS.Timeout | undefined;
}

export interface Placement {
  readonly group: string;
  readonly weight: number;
}

const SINGLE: Placement = { group: '', weight: 0 };

/**
 * The longest a later pipeline step's partial batch waits to fill. It fills at the pace of the
 * steps before it, which may be slow (geocoding at 20 rows a second fills 500 elevation points in
 * 25 s): meanwhile no row is finished, so no checkpoint is made, and a crash costs every request
 * since. Past this the batch leaves part-full, so that checkpoints come again. A row waits in each
 * later step that batches, one after the other: the pipeline shares this among them (two such
 * steps wait 2.5 s each), or a run of three steps wrote and committed nothing for its first 10 s.
 */
export const STEP_BATCH_WAIT_MS = 5000;

export class Batcher<T extends Batchable> {
  private readonly open = new Map<string, OpenBatch>();

  constructor(
    private readonly batching: Batching<unknown> | undefined,
    private readonly ready: (members: T[], group: string) => void,
    /**
     * False (a later pipeline step): partial batches do not linger, and leave when closed or after
     * STEP_BATCH_WAIT_MS.
     */
    private readonly linger = true,
    /**
     * Whether the engine is waiting for the input. Linger is for input that is slow to come: while
     * the engine reads nothing because its window is full or its requests are queued, the rows that
     * would fill a partial batch are only waiting for room, so the batch waits another lingerMs
     * instead of leaving part-full (a 10,250-point elevation run then sent 22 requests, not 21).
     * A head row that waits in it does not wait for this: the engine closes that batch.
     */
    private readonly awaitingInput: () => boolean = () => true,
    /** Without linger: how long a partial batch waits to fill (its share of STEP_BATCH_WAIT_MS). */
    private readonly stepWaitMs = STEP_BATCH_WAIT_MS,
  ) {
    if (batching !== undefined) validate(batching);
  }

  /**
   * Splits queued members into one request's worth (within maxItems and maxWeight) and the rest,
   * in order: how a serial group repacks what is still unanswered.
   */
  take(members: readonly T[]): { batch: T[]; rest: T[] } {
    const b = this.batching;
    if (b === undefined) return { batch: [...members], rest: [] };
    let weight = 0;
    let count = 0;
    for (const member of members) {
      const w = b.weight?.(member.item) ?? 0;
      if (count >= b.maxItems || (b.maxWeight !== undefined && count > 0 && weight + w > b.maxWeight)) break;
      weight += w;
      count++;
    }
    return { batch: members.slice(0, count), rest: members.slice(count) };
  }

  /** Where an item goes; computed before the item is registered anywhere, as job code may throw. */
  place(item: unknown): Placement {
    const b = this.batching;
    if (b === undefined) return SINGLE;
    return { group: b.group?.(item) ?? '', weight: b.weight?.(item) ?? 0 };
  }

  add(member: T, placement: Placement): void {
    const b = this.batching;
    if (b === undefined) {
      this.ready([member], placement.group);
      return;
    }
    // A contiguous group ends where another begins: nothing more will join its batch.
    if (b.contiguous === true) this.closeOthers(placement.group);
    let batch = this.open.get(placement.group);
    // A full contiguous batch leaves when the next item comes: by then the job knows whether its
    // group went on (this item) or ended (another group's item, or the end of the input).
    const full = b.contiguous === true && batch !== undefined && batch.members.length >= b.maxItems;
    const overweight =
      batch !== undefined && b.maxWeight !== undefined && batch.weight + placement.weight > b.maxWeight;
    if (batch !== undefined && (full || overweight)) {
      this.close(batch);
      batch = undefined;
    }
    if (batch === undefined)
      batch = this.start(
        placement.group,
        b.contiguous === true ? null : this.linger ? b.lingerMs : this.stepWaitMs,
        this.linger,
      );
    batch.members.push(member);
    batch.weight += placement.weight;
    member.batch = batch;
    if (b.contiguous !== true && batch.members.length >= b.maxItems) this.close(batch);
  }

  /** Sends a partial batch now. */
  close(batch: OpenBatch): void {
    if (this.open.get(batch.group) !== batch) return;
    clearTimeout(batch.timer);
    this.open.delete(batch.group);
    for (const member of batch.members) member.batch = undefined;
    this.ready(batch.members as T[], batch.group);
  }

  private closeOthers(group: string): void {
    for (const batch of [...this.open.values()]) if (batch.group !== group) this.close(batch);
  }

  closeAll(): void {
    for (const batch of [...this.open.values()]) this.close(batch);
  }

  /** Drops every open batch without sending it (the run is stopping). */
  dispose(): void {
    for (const batch of this.open.values()) clearTimeout(batch.timer);
    this.open.clear();
  }

  /**
   * `lingerMs` null: no timer (a contiguous group waits for its end, however slow the input).
   * `whenIdle`: the timer sends the batch only while the engine waits for input (see above); a
   * later step's longest wait sends it whatever the engine does.
   */
  private start(group: string, lingerMs: number | null, whenIdle: boolean): OpenBatch {
    const batch: OpenBatch = { group, members: [], weight: 0, timer: undefined };
    if (lingerMs !== null) {
      const expire = () => {
        if (!whenIdle || this.awaitingInput()) this.close(batch);
        else batch.timer = setTimeout(expire, lingerMs);
      };
      batch.timer = setTimeout(expire, lingerMs);
    }
    this.open.set(group, batch);
    return batch;
  }
}

function validate(b: Batching<unknown>): void {
  const bad = (name: string, expected: string, got: unknown) =>
    new UsageError(`Expected batching \`${name}\` to be ${expected}, got \`${String(got)}\``);
  if (!Number.isInteger(b.maxItems) || b.maxItems < 1)
    throw bad('maxItems', 'a positive integer', b.maxItems);
  if (!Number.isFinite(b.lingerMs) || b.lingerMs < 0) throw bad('lingerMs', 'a number >= 0', b.lingerMs);
  if (b.maxWeight !== undefined && !(b.maxWeight > 0))
    throw bad('maxWeight', 'a positive number', b.maxWeight);
}
