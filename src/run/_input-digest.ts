/**
 * What tells one standard input from another for the checkpoint. A file is known by its path, size
 * and modification time; standard input has none of these that holds from one run to the next
 * (a file redirected the first time may be piped the second, `cat in.csv |`, or come from a
 * query run again). What a resume needs is that the rows it skips are the rows the journal
 * committed: so the journal keeps a digest of those rows as they were read, and a resume reads
 * them again (as it always did, to skip them), digests them the same way and stops on input whose
 * committed rows differ before a row of it is sent or written.
 *
 * The digest of rows 0..n-1 is the XOR of a 64-bit hash per row of its index, lines and content
 * (its fields' names and values, a geometry or a record that could not be read as JSON; cyrb53's
 * mixing, both halves kept): it can be taken up to any row the run commits, in any session, while
 * the reader runs ahead of the rows committed. It costs about a quarter of a microsecond a row,
 * a quarter of what reading the row costs (a SHA-1 of the row as JSON cost three microseconds).
 * It tells other data from the data committed, by accident; it is no guard against forgery.
 */
import { batched, batchesOf } from '../batches.js';
import { type GeobatchError, IoError, RunError } from '../errors.js';
import { type InputReader, withItems } from '../input/reader.js';
import type { ReadItem } from '../types.js';

/** The state of the row hash being taken (cyrb53's two halves). */
let h1 = 0;
let h2 = 0;

/** Mixes `text` and its end into the row hash. */
function mix(text: string): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  // A separator no text can hide: 0x1f000 is no UTF-16 code unit.
  h1 = Math.imul(h1 ^ 0x1f000, 2654435761);
  h2 = Math.imul(h2 ^ 0x1f000, 1597334677);
}

export class RowDigest {
  private high = 0;
  private low = 0;
  /** Rows read but not folded in, in the order read (index order): index, then the hash's halves. */
  private pending: number[] = [];
  /** Where the rows not folded in start in `pending`. */
  private head = 0;
  /** Rows below this index have been seen. */
  private seen = 0;

  /** `resumed`: the rows a resumed session's journal committed, and their digest. */
  constructor(private readonly resumed?: { readonly rows: number; readonly digest: string }) {}

  /** Takes in a read item (every one, in the order read). */
  see(item: ReadItem): void {
    const { ref } = item;
    h1 = 0xdeadbeef ^ ref.index;
    h2 = 0x41c6ce57 ^ ref.line;
    if (ref.lastLine !== undefined) mix(String(ref.lastLine));
    if (item.kind === 'row') {
      // Its fields as they are, names and values, without the cost of making them JSON.
      for (const name in item.fields) {
        const value = item.fields[name];
        mix(name);
        mix(typeof value === 'string' ? value : `\u0000${JSON.stringify(value)}`);
      }
      if (item.geometry !== undefined) mix(JSON.stringify(item.geometry));
    } else mix(JSON.stringify(item));
    const high = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    const low = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(high ^ (high >>> 13), 3266489909);
    this.pending.push(ref.index, high >>> 0, low >>> 0);
    this.seen = ref.index + 1;
  }

  /** Folds in the rows seen below `rows`, so that they are not held. */
  fold(rows: number): void {
    const pending = this.pending;
    let at = this.head;
    while (at < pending.length && (pending[at] as number) < rows) {
      this.high = (this.high ^ (pending[at + 1] as number)) >>> 0;
      this.low = (this.low ^ (pending[at + 2] as number)) >>> 0;
      at += 3;
    }
    if (at === pending.length) {
      this.pending = [];
      this.head = 0;
    } else if (at >= 3 * 4096) {
      this.pending = pending.slice(at);
      this.head = 0;
    } else this.head = at;
  }

  /** The digest of the rows below `rows`: the part of the journal a resume checks. */
  digest(rows: number): string {
    if (this.seen < rows) {
      // A resumed session stopped before it read its committed rows again: they are the journal's.
      if (this.resumed !== undefined && rows === this.resumed.rows) return this.resumed.digest;
      throw new RunError('INVARIANT_BROKEN', `Rows to ${rows} committed, but only ${this.seen} read`);
    }
    this.fold(rows);
    return `${this.high.toString(16).padStart(8, '0')}${this.low.toString(16).padStart(8, '0')}`;
  }
}

/** What a resume checks the rows it reads again against. */
export interface CommittedRows {
  /** Rows the journal has written. */
  readonly rows: number;
  /** Their digest, from the journal. */
  readonly digest: string;
  readonly journalPath: string;
  /** True once the run's signal stopped it: its input then ends early, and that is no mismatch. */
  readonly stopped: () => boolean;
}

/**
 * `reader`, its items shown to `digest` once each as they are read. With `committed` (a resume),
 * the batch that reaches past the committed rows, or the input's end before them, is first
 * checked: input whose committed rows differ stops the session (CHECKPOINT_MISMATCH) before any
 * row of it goes on, so that nothing is sent or written for it.
 */
export function digested(
  reader: InputReader,
  digest: RowDigest,
  committed?: CommittedRows,
  /** `emptyOk`: an input with no row at all is no mismatch (a finishing resume given nothing). */
  options: { readonly emptyOk?: boolean } = {},
): InputReader {
  return withItems(
    reader,
    batched(() => {
      const batches = batchesOf(reader);
      let checked = committed === undefined;
      let read = 0;
      const check = async (ended: boolean) => {
        const against = committed as CommittedRows;
        if (ended && (against.stopped() || (read === 0 && options.emptyOk === true))) return;
        checked = true;
        if (read >= against.rows && digest.digest(against.rows) === against.digest) return;
        await batches.return?.();
        throw mismatch(against, read);
      };
      return {
        async next() {
          const next = await batches.next();
          if (next.done === true) {
            if (!checked) await check(true);
            return next;
          }
          for (const item of next.value) digest.see(item);
          if (!checked) {
            read = (next.value[next.value.length - 1]?.ref.index ?? read - 1) + 1;
            if (read >= (committed as CommittedRows).rows) await check(false);
            // Folded as they go, so that a long committed part holds no memory.
            else digest.fold((committed as CommittedRows).rows);
          }
          return next;
        },
        async return() {
          await batches.return?.();
          return { done: true, value: undefined };
        },
      };
    }),
  );
}

function mismatch(committed: CommittedRows, read: number): GeobatchError {
  const { rows, journalPath } = committed;
  return new IoError(
    'CHECKPOINT_MISMATCH',
    read < rows
      ? `Checkpoint ${journalPath} was made from other input: standard input ended after ${read} rows, and the checkpoint has ${rows} written`
      : `Checkpoint ${journalPath} was made from other input: the first ${rows} rows of standard input are not the rows it wrote`,
    {
      file: journalPath,
      expected: `the ${rows} rows written before`,
      received: read < rows ? `${read} rows` : 'other rows',
      hint: `Give the same data on standard input again, or delete ${journalPath} and the .partial files to start over (the rows read to compare them are spent, so --restart-if-changed cannot start over from standard input).`,
    },
  );
}
