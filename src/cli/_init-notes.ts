/** What `geobatch init` tells the person who ran it, on standard error: each guess, each TODO. */
import { basename } from 'node:path';
import { shellWord } from '../shell-word.js';
import type { Candidate, InputHead } from './_candidates.js';
import { mixNote } from './_init-decimal.js';
import { pointsInGeometry, type Todo } from './_job-yaml.js';
import { plural, where } from './_summary.js';

export interface InitResult {
  readonly text: string;
  readonly candidate: Candidate;
  /** The mapping keys written as TODO values: the file does not load until they are set. */
  readonly todos: readonly Todo[];
  /** Absolute path written, or `-`. */
  readonly written: string;
  readonly alternatives: readonly string[];
  readonly head: InputHead;
}

/** How much of the input init looked at: `0 rows read`, `1 row read`, `first 200 rows read`. */
function rowsRead(rows: number): string {
  return rows <= 1 ? `${plural(rows, 'row')} read` : `first ${rows} rows read`;
}

/** What init tells the person who ran it, on standard error. */
export function describeInit(result: InitResult, colour: boolean, forced: boolean): string {
  const { candidate, head } = result;
  const todo = (text: string) => (colour ? `\x1b[33m${text}\x1b[0m` : text);
  const mapped = [...candidate.mapping.entries()].map(([field, guess]) => `${field} <- ${guess.column}`);
  const lines = [
    `geobatch init: ${basename(head.path)}: ${head.format}, ${plural(head.columns.length, 'column')}, ${rowsRead(head.rows.length)}`,
    `  kind     ${candidate.kind.name} (${forced ? '--kind' : guessWhy(candidate, head)}): ${candidate.kind.summary}`,
    `  mapping  ${mapped.length === 0 ? noMapping(head) : mapped.join(', ')}`,
  ];
  const form = candidate.form;
  if (form !== undefined && form.dropped.length > 0)
    lines.push(
      `  form     ${form.form} (${form.dropped.join(', ')} left out: ${form.why}; the file says how to take the other)`,
    );
  for (const [key, guess] of candidate.options)
    lines.push(`  option   ${key}: ${JSON.stringify(guess.value)} (${guess.reason})`);
  if (head.encoding !== undefined) lines.push(`  encoding ${head.encoding} (guessed: the file is not UTF-8)`);
  if (result.alternatives.length > 0)
    lines.push(`  also     ${result.alternatives.join(', ')} (geobatch init --kind <kind>)`);
  for (const [why, fields] of todoGroups(result.todos))
    lines.push(
      todo(
        `  TODO     ${fields.map((field) => `mapping.${field}`).join(', ')}: ${why}; set ${fields.length > 1 ? 'them' : 'it'} in the file`,
      ),
    );
  for (const problem of candidate.problems) lines.push(todo(`  TODO     ${problem}`));
  // A key left unmapped on purpose, the file running without it: said, not written as a TODO value.
  for (const [field, note] of candidate.notes)
    if (note.startsWith('TODO: ') && !candidate.mapping.has(field))
      lines.push(todo(`  TODO     mapping.${field}: ${note.slice('TODO: '.length)}`));
  const mix = head.dialect?.decimalMix;
  if (mix !== undefined) lines.push(todo(`  TODO     input.decimal: ${mixNote(mix).replace(/^TODO: /, '')}`));
  // The path as written relative to here: `-o jobs/x.yaml` must not be shown as `x.yaml`.
  const shown = result.written === '-' ? 'standard output' : where(result.written);
  const runnable = candidate.problems.length === 0 && result.todos.length === 0;
  lines.push(`wrote ${shown}${runnable ? '' : '; it will not run before the TODOs are done'}`);
  // A command to paste: the path quoted where a shell would split or cut it (`#1 Kunden: 2024.csv`).
  if (result.written !== '-') {
    const file = shellWord(where(result.written));
    lines.push(
      runnable
        ? `next: geobatch run ${file} --emulator --limit 50`
        : `next: do the TODOs in ${file}, then geobatch validate ${file}`,
    );
  }
  return lines.join('\n');
}

/** The TODO keys that share a reason, together: `mapping.lon, mapping.lat: one of a, b?`. */
function todoGroups(todos: readonly Todo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { why, field } of todos) groups.set(why, [...(groups.get(why) ?? []), field]);
  return groups;
}

function guessWhy(candidate: Candidate, head: InputHead): string {
  if (candidate.mapping.size > 0)
    return `guessed: its mapping reads ${candidate.mapping.size} of the columns`;
  return pointsInGeometry(head) ? "guessed from the features' Point geometries" : 'guessed';
}

function noMapping(head: InputHead): string {
  return pointsInGeometry(head) ? "none: each feature's Point geometry is read" : 'none';
}
