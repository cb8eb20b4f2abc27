/**
 * The coordinator's view of a grouped job's groups (a trip's stops, a track's fixes), kept by the
 * rule the job's own GroupRuns follows (src/jobs/_groups.ts): a group ends where a row names a
 * new one; a row naming none, or a group that already ended, fails on its own and changes nothing.
 * Chunks are cut only where a group begins, and each chunk is told which of the groups it names
 * ended before it, so that a worker fails a group that comes again as one pass would.
 */
import type { AnyJob } from '../engine/job.js';
import { continuesGroup } from '../input/sample.js';
import { DEFAULT_REMEMBER } from '../jobs/_groups.js';
import type { ReadItem } from '../types.js';

interface Span {
  /** 1-based rows, as the job's messages give them. */
  first: number;
  last: number;
  /** 0-based index of the row that ended the group. */
  endedAt: number;
}

export class GroupTracker {
  private current: { name: string; first: number; last: number } | undefined;
  private readonly ended = new Map<string, Span>();
  /** A pipeline's groups of the last row that named any, one per step (Job.groupParts). */
  private lastParts: readonly (string | undefined)[] | undefined;

  constructor(private readonly job: AnyJob) {}

  /** Takes the next item in input order; true when it begins a group (a chunk may start there). */
  see(item: ReadItem): boolean {
    if (item.kind !== 'row') return false;
    const name = this.job.groupOf?.(item);
    if (name === undefined) return false;
    const index = item.ref.index;
    if (this.current?.name === name) {
      this.current.last = index;
      return false;
    }
    // A pipeline whose steps group by different columns: a new combination of groups that still
    // carries on one step's group (a tour's next track) is no place to cut.
    const parts = this.job.groupParts?.(item);
    const inside = continuesGroup(parts, this.lastParts);
    if (parts !== undefined) this.lastParts = parts;
    if (this.ended.has(name)) return false;
    if (this.current !== undefined) {
      this.ended.set(this.current.name, {
        first: this.current.first + 1,
        last: this.current.last + 1,
        endedAt: index,
      });
      if (this.ended.size > DEFAULT_REMEMBER) {
        const oldest = this.ended.keys().next();
        if (oldest.done !== true) this.ended.delete(oldest.value);
      }
    }
    this.current = { name, first: index, last: index };
    return !inside;
  }

  /**
   * Every group seen so far, the current one included, as ended: where a resumed run begins (only
   * ever between groups), all of them have (src/run/session.ts).
   */
  endedSoFar(): Map<string, { first: number; last: number }> {
    const all = new Map<string, { first: number; last: number }>();
    for (const [name, span] of this.ended) all.set(name, { first: span.first, last: span.last });
    const current = this.current;
    if (current !== undefined) all.set(current.name, { first: current.first + 1, last: current.last + 1 });
    return all;
  }

  /** The groups the chunk names that had ended before its first row. */
  endedBefore(chunk: readonly ReadItem[]): Record<string, { first: number; last: number }> | undefined {
    const start = chunk[0]?.ref.index ?? 0;
    const found: Record<string, { first: number; last: number }> = {};
    let any = false;
    for (const item of chunk) {
      if (item.kind !== 'row') continue;
      const name = this.job.groupOf?.(item);
      const span = name === undefined ? undefined : this.ended.get(name);
      if (name === undefined || span === undefined || span.endedAt > start) continue;
      found[name] = { first: span.first, last: span.last };
      any = true;
    }
    return any ? found : undefined;
  }
}
