/** The job file init drafts, loaded as `geobatch validate` and `geobatch run` load it. */
import { parseJobFile } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import { type JobDraft, renderJobFile } from './_job-yaml.js';

/**
 * What the loader says of the drafted file, in the words init's TODOs use (as _candidates.ts
 * words them); undefined when it loads. Nothing is read but the draft.
 */
export function loadProblem(draft: JobDraft): string | undefined {
  try {
    parseJobFile(renderJobFile(draft), draft.jobPath, {}, 'the job file');
    return undefined;
  } catch (error) {
    if (!isGeobatchError(error)) throw error;
    return error.message.replace(/^the job file: /, '');
  }
}
