/**
 * The job file init drafts: as _job-yaml.ts renders it, then finished by init's own rules (the
 * keys it could not fill as TODO values that keep the file from loading, a word beside a field
 * where a column was seen and not taken, the header's commands quoted for a shell).
 */
import { basename } from 'node:path';
import type { Candidate, InputHead } from './_candidates.js';
import { houseNoNote } from './_init-house-number.js';
import { loadProblem } from './_init-load.js';
import { matrixNotes } from './_init-matrix.js';
import { quoteHeaderCommands } from './_init-shell.js';
import { replaceMappingLines, type Todo, todoLines, todosOf } from './_init-todo.js';
import { type JobDraft, renderJobFile } from './_job-yaml.js';

export interface DraftPlace {
  readonly head: InputHead;
  /** Absolute path the job file will have: its relative paths start from its folder. */
  readonly jobPath: string;
  readonly alternatives: readonly string[];
  /** Number columns held back from houseNo, with why (_init-house-number.ts). */
  readonly hidden: ReadonlyMap<string, string>;
  /** How init was called, for the header. */
  readonly command: string;
}

/** The job file's text for `candidate`, and the keys left to set in it. */
export function draftText(candidate: Candidate, place: DraftPlace): { text: string; todos: Todo[] } {
  const { head, jobPath } = place;
  const draft: JobDraft = {
    head,
    jobPath,
    alternatives: place.alternatives,
    command: place.command,
    kind: candidate.kind,
    mapping: candidate.mapping,
    options: candidate.options,
    // The TODO keys own the point's lines: todosOf covers every undecided point the kind reads.
    undecided: [],
    problems: candidate.problems,
  };
  const todos = todosOf(candidate, head, loadProblem(draft) === undefined);
  const lines = new Map([
    ...matrixNotes(candidate),
    ...houseNoNote(candidate, place.hidden),
    ...todoLines(todos, head.format),
  ]);
  const text = replaceMappingLines(renderJobFile(draft), lines);
  return { text: quoteHeaderCommands(text, basename(jobPath)), todos };
}
