/**
 * A worker's fatal stop, said for a worker. The hints of fatal errors are written for the run that
 * stops, whose way on once the cause is fixed is `--resume`; a worker has no run of its own to
 * resume: it is started again, and the run's chunks wait for it in the queue (those it held were
 * handed back). So wherever a hint sends the user to `--resume`, a worker's sends them to start it.
 */
import { isGeobatchError, withContext } from '../errors.js';
import { withoutResume } from '../run/_summary-facts.js';

/** What to do once the cause is fixed, and why that is all (the words of ONCE_FIXED.worker). */
const AGAIN = "start the worker again: the run's chunks stay in the queue.";

/** The error a worker ends with, its hint made a worker's; any other value as it is. */
export function forWorker(error: unknown): unknown {
  const hint = isGeobatchError(error) ? error.context.hint : undefined;
  if (!isGeobatchError(error) || hint === undefined || !hint.includes('--resume')) return error;
  return withContext(error, { ...error.context, hint: workerHint(hint) });
}

/** `hint` with its `--resume` advice replaced by starting the worker again. */
export function workerHint(hint: string): string {
  if (!hint.includes('--resume')) return hint;
  const kept = withoutResume(hint).replace(/[.;,:]\s*$/, '');
  return kept === '' ? `${AGAIN.charAt(0).toUpperCase()}${AGAIN.slice(1)}` : `${kept}, then ${AGAIN}`;
}
