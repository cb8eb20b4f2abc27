/**
 * `--limit N` and `--sample N`: a reader that hands on only some of an input's records, to try a
 * job on a few rows before paying for all of them.
 *
 * - limit: the first N records; reading stops there and the file is closed.
 * - sample: N records drawn uniformly from the whole input by reservoir sampling (Vitter's
 *   algorithm R) with a seeded generator, so the same seed and input always draw the same records.
 *   The whole input is read before the first record leaves, and exactly N records are held in
 *   memory meanwhile (each at most `maxRecordBytes`): memory is bounded by N, not by the input.
 *   The records leave in input order.
 * With both, the sample is drawn from the first `limit` records.
 *
 * Rows that form groups (a trip's stops, a track's fixes: `groupOf`) are answered group by group,
 * so a selection takes whole groups: a limit ends with the group its last record is in, and a
 * sample draws N groups (a record that names none is a group of its own). A trip cut to the stops
 * the limit reached was answered as a shorter trip, and sampled stops each as a trip of one,
 * all written as ok.
 *
 * The engine numbers rows by `ref.index` and requires them consecutive from 0 (the accounting and
 * the checkpoint rely on it), so sampled records are renumbered; `ref.line` still points at the
 * record's line in the input file.
 */
import { UsageError } from '../errors.js';
import type { ReadItem, Row } from '../types.js';
import { type InputReader, withItems } from './reader.js';

export interface RowSelection {
  /** Read only the first `limit` records. */
  readonly limit?: number;
  /** Draw this many records from the input (or from the first `limit`). */
  readonly sample?: number;
  /**
   * Seeds the sample's draw: the same seed draws the same records; a number draws as its text
   * does (7 as `--seed 7`). @default '0'
   */
  readonly seed?: string | number;
}

/** A selection checked: its seed a text. */
export type CheckedSelection = RowSelection & { readonly seed?: string };

/** The seed a sample uses when none is given: a fixed one, so that a try can be repeated. */
export const DEFAULT_SEED = '0';

/** Checks a selection once, at the boundary; afterwards its numbers are trusted. */
export function checkSelection(selection: RowSelection): CheckedSelection {
  for (const name of ['limit', 'sample'] as const) {
    const value = selection[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new UsageError(`Expected \`${name}\` to be a positive whole number of rows, got \`${value}\``, {
        field: name,
        expected: 'a positive whole number',
        received: String(value),
      });
    }
  }
  if (selection.seed !== undefined && selection.sample === undefined) {
    throw new UsageError('A seed only applies to a sample', {
      field: 'seed',
      hint: 'Add --sample N to draw N rows with this seed, or drop --seed.',
    });
  }
  const seed: unknown = selection.seed;
  if (seed !== undefined && typeof seed !== 'string') {
    // A library caller from JavaScript may pass 7 for '7'; the draw is the same as from --seed 7.
    if (typeof seed === 'number' && Number.isFinite(seed)) return { ...selection, seed: String(seed) };
    throw new UsageError(`Expected \`seed\` to be a text or a number, got \`${String(seed)}\``, {
      field: 'seed',
      expected: 'a text or a number',
      received: String(seed),
    });
  }
  return selection as CheckedSelection;
}

/** True when the selection keeps every record (nothing to wrap). */
export function selectsAll(selection: RowSelection | undefined): boolean {
  return selection?.limit === undefined && selection?.sample === undefined;
}

/**
 * What makes two selections pick different rows, for the checkpoint's fingerprint: a run resumed
 * with another limit, sample or seed would mix rows of two selections in one output.
 */
export function selectionKey(selection: RowSelection | undefined): string {
  if (selectsAll(selection)) return '';
  const { limit, sample, seed } = selection ?? {};
  return `limit=${limit ?? ''};sample=${sample ?? ''};seed=${sample === undefined ? '' : (seed ?? DEFAULT_SEED)}`;
}

/** A selection as the run summary gives it; undefined for every row. */
export function selectionSummary(
  selection: RowSelection | undefined,
): { limit: number | null; sample: number | null; seed: string | null } | undefined {
  if (selectsAll(selection)) return undefined;
  const { limit, sample, seed } = selection ?? {};
  return {
    limit: limit ?? null,
    sample: sample ?? null,
    seed: sample === undefined ? null : String(seed ?? DEFAULT_SEED),
  };
}

/**
 * The command-line flags that make a selection of `key` (selectionKey's, as a checkpoint keeps
 * it): `--limit 700`, `--sample 50 --seed 7`; none for every row. `geobatch status` gives them in
 * the command that resumes a run.
 */
export function selectionFlags(key: string | undefined): string[] {
  const flags: string[] = [];
  for (const part of (key ?? '').split(';')) {
    const [name, value] = part.split('=');
    if (value !== undefined && value !== '' && (name === 'limit' || name === 'sample' || name === 'seed'))
      flags.push(`--${name}`, value);
  }
  return flags;
}

/**
 * The groups a row belongs to, for jobs whose rows are answered together: one name (or none) for
 * each grouping of the job, a pipeline's steps of groups each having one (Job.groupParts).
 */
export type GroupOf = (row: Row) => readonly (string | undefined)[];

/** A job's reading of groups, when its rows form any (as a function of its own). */
export function groupsOf(job: {
  groupOf?(row: Row): string | undefined;
  groupParts?(row: Row): readonly (string | undefined)[];
}): GroupOf | undefined {
  if (job.groupParts !== undefined) return (row) => job.groupParts?.(row) ?? [];
  return job.groupOf === undefined ? undefined : (row) => [job.groupOf?.(row)];
}

/**
 * Whether a record whose groups are `names` carries on a group of the record before (`last`): a
 * step of a pipeline may group by a tour and another by a track, and a selection or a chunk that
 * ended where only one of them changes would cut the other's group short.
 */
export function continuesGroup(
  names: readonly (string | undefined)[] | undefined,
  last: readonly (string | undefined)[] | undefined,
): boolean {
  if (names === undefined || last === undefined) return false;
  return names.some((name, i) => name !== undefined && name === last[i]);
}

/**
 * The most rows a selection can hand on (for progress' total); undefined when unbounded, or when
 * it takes whole groups, whose sizes only the input knows.
 */
export function selectionCap(selection: RowSelection | undefined, groupOf?: GroupOf): number | undefined {
  if (groupOf !== undefined) return undefined;
  const caps = [selection?.limit, selection?.sample].filter((n): n is number => n !== undefined);
  return caps.length === 0 ? undefined : Math.min(...caps);
}

/** `reader` with only the selected records; the reader itself when the selection keeps all. */
export function selectRows(
  reader: InputReader,
  selection: RowSelection | undefined,
  groupOf?: GroupOf,
): InputReader {
  if (selection === undefined || selectsAll(selection)) return reader;
  const { limit, sample, seed } = checkSelection(selection);
  const items = () => {
    const source: AsyncIterable<ReadItem> =
      limit === undefined ? reader : firstRecords(reader, limit, groupOf);
    return sample === undefined ? source : drawSample(source, sample, seed ?? DEFAULT_SEED, groupOf);
  };
  return withItems(reader, { [Symbol.asyncIterator]: () => items()[Symbol.asyncIterator]() });
}

/** The groups of a record, for a job of groups; undefined for a record that names none. */
function groupNames(
  item: ReadItem,
  groupOf: GroupOf | undefined,
): readonly (string | undefined)[] | undefined {
  if (groupOf === undefined || item.kind !== 'row') return undefined;
  const names = groupOf(item);
  return names.some((name) => name !== undefined) ? names : undefined;
}

/**
 * How a record stands to the groups before it, read as the jobs of groups read it
 * (jobs/_groups.ts): it `continues` a group of some step, `begins` one, or is a `stray`, which
 * fails on its own in its job and ends no group: it names none, or only groups that already ended
 * (a trip's stop that comes back after the next trip began).
 */
type GroupStanding = 'continues' | 'begins' | 'stray';

/** The groups of each step so far: the current one and, by name, those that ended. */
class GroupFollower {
  #current: (string | undefined)[] = [];
  #ended: Set<string>[] = [];
  #remembered = 0;

  /** Whether a group has begun yet. */
  get started(): boolean {
    return this.#current.some((name) => name !== undefined);
  }

  see(names: readonly (string | undefined)[] | undefined): GroupStanding {
    if (names === undefined) return 'stray';
    const begun: number[] = [];
    let continues = false;
    names.forEach((name, step) => {
      if (name === undefined) return;
      if (name === this.#current[step]) continues = true;
      else if (this.#ended[step]?.has(name) !== true) begun.push(step);
    });
    for (const step of begun) {
      const ended = this.#current[step];
      if (ended !== undefined) {
        const set = this.#ended[step] ?? new Set<string>();
        this.#ended[step] = set;
        set.add(ended);
        // As many as the jobs remember: a group back after more than that is not caught by either.
        if (++this.#remembered > REMEMBERED_GROUPS) {
          set.delete(set.values().next().value as string);
          this.#remembered--;
        }
      }
      this.#current[step] = names[step];
    }
    if (continues) return 'continues';
    return begun.length > 0 ? 'begins' : 'stray';
  }
}

/** Stray records held past a limit, waiting for the next record of the group they are in. */
const HELD_MOST = 10_000;

async function* firstRecords(
  items: AsyncIterable<ReadItem>,
  limit: number,
  groupOf: GroupOf | undefined,
): AsyncGenerator<ReadItem> {
  let count = 0;
  const groups = new GroupFollower();
  // Past the limit, stray records are held until the next that names a group: a trip's stop with
  // its trip column empty, or one of a trip that already ended, fails alone and ends no group, so
  // the trip around it may go on after it (a limit that stopped there cut it short, written ok).
  const held: ReadItem[] = [];
  for await (const item of items) {
    const standing = groupOf === undefined ? undefined : groups.see(groupNames(item, groupOf));
    if (count >= limit) {
      if (standing === 'stray' && groups.started) {
        // Bounded, as the jobs' own group runs are: so many such records end the reading.
        if (held.length >= HELD_MOST) return;
        held.push(item);
        continue;
      }
      // The limit fell inside a group (of any step): the rest of it comes too, then reading stops.
      if (standing !== 'continues') return;
      yield* held.splice(0);
    }
    yield item;
    count++;
    // Leaving the loop returns the reader's generator, which closes the file: nothing more is read.
    if (count >= limit && groupOf === undefined) return;
  }
}

/**
 * Group names a sample remembers to know a run of records as a group's return: as many as the
 * jobs of groups remember ended groups by (jobs/_groups.ts), so that both catch the same returns.
 */
const REMEMBERED_GROUPS = 50_000;

/**
 * N units drawn by reservoir sampling: records, or for a job of groups, runs of records of one
 * group. A group that comes again later is never drawn on its own: its job refuses those rows in
 * a full run, but alone in a sample it would see them as a whole trip or track and write them ok.
 */
async function* drawSample(
  items: AsyncIterable<ReadItem>,
  size: number,
  seed: string,
  groupOf: GroupOf | undefined,
): AsyncGenerator<ReadItem> {
  const random = seededRandom(seed);
  const kept: ReadItem[][] = [];
  let seen = 0;
  let unit: ReadItem[] = [];
  // The groups the unit's records name, each as `<step>:<name>`.
  let names = new Set<string>();
  const follower = new GroupFollower();
  const groups = new Set<string>();
  const close = () => {
    if (unit.length === 0) return;
    const ended = names;
    names = new Set();
    if ([...ended].some((name) => groups.has(name))) {
      unit = [];
      return;
    }
    for (const name of ended) {
      groups.add(name);
      if (groups.size > REMEMBERED_GROUPS) groups.delete(groups.values().next().value as string);
    }
    if (kept.length < size) kept.push(unit);
    else {
      const slot = Math.floor(random() * (seen + 1));
      if (slot < size) kept[slot] = unit;
    }
    seen++;
    unit = [];
  };
  for await (const item of items) {
    const group = groupNames(item, groupOf);
    const standing = groupOf === undefined ? 'begins' : follower.see(group);
    // A record of a group that already ended fails in the full run ("already ended"); in a sample
    // that may not hold that group it would be a trip of its own, written ok: it is never drawn.
    // Nor does it end the group around it, which a sample drew cut short at it.
    if (group !== undefined && standing === 'stray') continue;
    // A record that names no group fails on its own and, as in the job, ends no group: it stays
    // with the unit it is in. Without groups every record is a unit; with them, a unit ends where
    // no group of any step goes on.
    if (standing === 'begins') close();
    unit.push(item);
    if (group === undefined) continue;
    group.forEach((name, step) => {
      if (name !== undefined) names.add(`${step}:${name}`);
    });
  }
  close();
  kept.sort((a, b) => (a[0]?.ref.index ?? 0) - (b[0]?.ref.index ?? 0));
  let index = 0;
  for (const records of kept)
    for (const item of records) yield { ...item, ref: { ...item.ref, index: index++ } };
}

/**
 * mulberry32 seeded by a 32-bit FNV-1a hash of the seed text: small, fast, and the same numbers on
 * every platform and Node version (Math.random cannot be seeded).
 */
export function seededRandom(seed: string): () => number {
  let state = 0x811c9dc5;
  for (const char of seed) state = Math.imul(state ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
