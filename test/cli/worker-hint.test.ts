/**
 * A worker that stops is started again: its hint never sends the user to `--resume`, which is a
 * coordinator's (or a single run's) way on, whatever the fatal code it stops with.
 */
import { describe, expect, it } from 'vitest';
import { logWriteError } from '../../src/cli/_log-file.js';
import { forWorker, workerHint } from '../../src/cli/_worker-hint.js';
import {
  type ErrorCode,
  interrupted,
  isFatalCode,
  isGeobatchError,
  reviveError,
  ServiceError,
} from '../../src/errors.js';
import { ONCE_FIXED, queueError } from '../../src/queue/database.js';
import { queueUnusable } from '../../src/queue/rate.js';
import { ERROR_ADVICE } from '../../src/report/advice.js';

const AGAIN = "start the worker again: the run's chunks stay in the queue.";

describe("a worker's fatal stop", () => {
  it('says to start the worker again after a log file that failed, keeping what to fix, the code and context', () => {
    const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      syscall: 'write',
    });
    const stopped = forWorker(logWriteError('/dev/full', cause));
    expect(isGeobatchError(stopped) && stopped.code).toBe('IO_ERROR');
    expect(isGeobatchError(stopped) && stopped.context).toEqual({
      field: 'log-file',
      file: '/dev/full',
      hint: `Free space on the disk that holds /dev/full, or name another --log-file, then ${AGAIN}`,
    });
    expect(stopped).toBeInstanceOf(Error);
    expect((stopped as Error).message).toMatch(/^--log-file: writing the log to \/dev\/full failed: ENOSPC/);
  });

  it.each([
    ['ABORTED', interrupted(undefined), `S${AGAIN.slice(1)}`],
    [
      'QUEUE_UNUSABLE (as a coordinator says it)',
      queueError('postgres://q/db', 'looking for work', new Error('boom'), ONCE_FIXED.coordinator),
      `check the queue URL (--queue or GEOBATCH_QUEUE), the password (PGPASSWORD or ~/.pgpass) and that PostgreSQL is up and reachable from this machine, then ${AGAIN}`,
    ],
    [
      'QUEUE_UNUSABLE (the shared rate)',
      queueUnusable('postgres://q/db', new Error('boom')),
      `check that this PostgreSQL is up and reachable from this machine; done chunks are kept, then ${AGAIN}`,
    ],
    [
      'QUOTA_EXCEEDED',
      new ServiceError('QUOTA_EXCEEDED', 'quota', {
        status: 402,
        hint: 'wait until the quota resets or raise it; rows already done are kept and --resume continues',
      }),
      `wait until the quota resets or raise it, then ${AGAIN}`,
    ],
  ])('%s: its hint says to start the worker again', (_name, error, hint) => {
    const stopped = forWorker(error);
    expect(isGeobatchError(stopped) && stopped.code).toBe(error.code);
    expect(isGeobatchError(stopped) && stopped.context).toEqual({ ...error.context, hint });
  });

  // Every fatal code's advice that sends a run to --resume, as the hint a worker might stop with.
  const resumed = (Object.entries(ERROR_ADVICE) as [ErrorCode, string][]).filter(
    ([code, advice]) => isFatalCode(code) && advice.includes('--resume'),
  );

  it.each(resumed)('%s: never sends a worker to --resume', (code, advice) => {
    const stopped = forWorker(reviveError({ code, message: 'stopped', hint: advice }));
    expect(isGeobatchError(stopped) && stopped.code).toBe(code);
    const hint = isGeobatchError(stopped) ? (stopped.context.hint ?? '') : '';
    expect(hint).not.toContain('--resume');
    expect(hint.toLowerCase().endsWith(AGAIN)).toBe(true);
  });

  it('covers the codes a run is sent to --resume by', () => {
    expect(resumed.map(([code]) => code).sort()).toEqual([
      'ABORTED',
      'AUTH_MISSING',
      'AUTH_REJECTED',
      'CHECKPOINT_MISMATCH',
      'IO_ERROR',
      'QUEUE_UNUSABLE',
      'QUOTA_EXCEEDED',
      'SERVICE_UNREACHABLE',
      'WORKER_MISCONFIGURED',
    ]);
  });

  it('leaves a hint without --resume, and anything that is not a geobatch error, as they are', () => {
    const hint = 'check GEOBATCH_API_KEY';
    expect(workerHint(hint)).toBe(hint);
    const plain = new Error('boom');
    expect(forWorker(plain)).toBe(plain);
  });
});
