/** The row-accounting invariant, checked at the end of every run that finishes. */
import { RunError } from '../errors.js';

export interface RowAccount {
  /** Rows the engine took from the input. */
  readonly read: number;
  /** Rows (outcomes) the output writer took. */
  readonly written: number;
  readonly ok: number;
  readonly failed: number;
  /** Rows the error report took; undefined when there is no report. */
  readonly reported: number | undefined;
}

/**
 * rows read = rows written = ok + failed, and the report holds exactly the failed rows.
 * A violation is a defect in geobatch: reported loudly rather than hidden in a partial output.
 */
export function checkAccount(account: RowAccount): void {
  const { read, written, ok, failed, reported } = account;
  const balanced =
    read === written && written === ok + failed && (reported === undefined || reported === failed);
  if (!balanced) {
    throw new RunError(
      'INVARIANT_BROKEN',
      `Row accounting does not balance: ${read} read, ${written} written, ${ok} ok + ${failed} failed, ` +
        `${reported ?? 'no'} in the error report`,
      { hint: 'This is a bug in geobatch; the checkpoint is kept. Please report it with the summary file.' },
    );
  }
}
