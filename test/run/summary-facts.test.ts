/** A stop that keeps no checkpoint must not send the user after --resume, but keeps the rest of its hint. */
import { describe, expect, it } from 'vitest';
import { isGeobatchError, ServiceError } from '../../src/errors.js';
import { withoutResume, withoutResumeHint } from '../../src/run/_summary-facts.js';

describe('a hint without --resume', () => {
  it.each([
    [
      'check the --queue URL, the password and that PostgreSQL is up, then run the coordinator again with --resume: the chunks done are kept',
      'check the --queue URL, the password and that PostgreSQL is up',
    ],
    [
      'wait until the quota resets or raise it; rows already done are kept and --resume continues',
      'wait until the quota resets or raise it',
    ],
    ['Run again with --resume to continue from the checkpoint.', ''],
    ['Fix the key. Then run again with --resume.', 'Fix the key.'],
    // A clause cut before more keeps its sentence's end.
    [
      'check that this PostgreSQL is up, then start the run again with --resume (and the workers again); done chunks are kept',
      'check that this PostgreSQL is up; done chunks are kept',
    ],
    ['Free space, then run again with --resume. Or name another file.', 'Free space. Or name another file.'],
  ])('%s', (hint, kept) => {
    expect(withoutResume(hint)).toBe(kept);
  });

  it('drops the hint only when nothing else is left, and keeps the code and context', () => {
    const error = new ServiceError('QUOTA_EXCEEDED', 'quota', {
      status: 402,
      hint: 'wait until the quota resets or raise it; rows already done are kept and --resume continues',
    });
    const kept = withoutResumeHint(error);
    expect(isGeobatchError(kept) && kept.code).toBe('QUOTA_EXCEEDED');
    expect(isGeobatchError(kept) && kept.context).toMatchObject({
      status: 402,
      hint: 'wait until the quota resets or raise it',
    });
    const none = withoutResumeHint(
      new ServiceError('QUOTA_EXCEEDED', 'quota', { hint: 'Run again with --resume.' }),
    );
    expect(isGeobatchError(none) && none.context.hint).toBeUndefined();
  });
});
