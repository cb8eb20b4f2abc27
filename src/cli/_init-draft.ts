/**
 * The job file init drafts, as _job-yaml.ts renders it: the candidate's mapping and notes, and the
 * keys it could not fill as TODO values that keep the file from loading (_init-todo.ts).
 */
import type { Candidate, InputHead } from './_candidates.js';
import { loadProblem } from './_init-load.js';
import { todosOf } from './_init-todo.js';
import { type JobDraft, renderJobFile, type Todo } from './_job-yaml.js';

export interface DraftPlace {
  readonly head: InputHead;
  /** Absolute path the job file will have: its relative paths start from its folder. */
  readonly jobPath: string;
  readonly alternatives: readonly string[];
  /** How init was called, for the header. */
  readonly command: string;
}

/** The job file's text for `candidate`, and the keys left to set in it. */
export function draftText(candidate: Candidate, place: DraftPlace): { text: string; todos: Todo[] } {
  const { head } = place;
  const draft: JobDraft = {
    head,
    jobPath: place.jobPath,
    alternatives: place.alternatives,
    command: place.command,
    kind: candidate.kind,
    mapping: candidate.mapping,
    options: candidate.options,
    notes: candidate.notes,
    problems: candidate.problems,
  };
  // Whether the draft loads is asked before the TODO keys are in it: they keep any file from loading.
  const todos = todosOf(candidate, head, loadProblem(draft) === undefined);
  return { text: renderJobFile({ ...draft, todos }), todos };
}
