/**
 * Which job kind a file is for, as `geobatch init` decides it. Every kind in the registry is
 * tried, so a kind added later takes part without a word here:
 *
 * 1. its mapping is guessed from the columns (see _columns.ts);
 * 2. the job file init would write for it is loaded as `geobatch run` loads it (schema, the kind's
 *    own cross-checks), the job is built, and the first rows are planned by the kind itself,
 *    which says whether it finds what it needs in them (no request is sent);
 * 3. a kind that loads and plans at least half of the first rows is a candidate (but not matrix
 *    reading lon/lat columns as its origin: see _init-matrix.ts); the candidate whose mapping
 *    reads the most columns wins (a Point geometry it reads counts as two), and a tie goes to the kind listed first in the registry
 *    (geocode, reverse-geocode, elevation, ...).
 *
 * So coordinates alone make reverse-geocode, addresses make geocode, and a file with both makes
 * whichever reads more of it; a track or trip column, an origin and a destination, minutes or a
 * supplier key make the kinds that read those.
 */
import { parseJobFile } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import type { JobKind } from '../jobs/index.js';
import { JOB_KINDS } from '../jobs/index.js';
import {
  type ColumnGuess,
  guessByName,
  guessPointByValues,
  isBareNumber,
  isRectangleSide,
  settleRectangle,
  swappedByValues,
} from './_columns.js';
import { type FormPick, onePerRow, pickForm } from './_init-forms.js';
import { houseNoNote, houseNumberColumns } from './_init-house-number.js';
import { asOrigin, matrixNotes } from './_init-matrix.js';
import { settleTime } from './_init-time.js';
import { type InputHead, type JobDraft, renderJobFile } from './_job-yaml.js';
import { guessOptions, type OptionGuess } from './_options-guess.js';
import { planningJob } from './_planning-job.js';

export type { InputHead } from './_job-yaml.js';

export interface Candidate {
  readonly kind: JobKind;
  readonly mapping: ReadonlyMap<string, ColumnGuess>;
  /** Point fields whose column the values could not settle: the columns that might be it. */
  readonly undecided: readonly string[];
  /** Why the file as written cannot run yet (each becomes a TODO); empty when it can. */
  readonly problems: readonly string[];
  readonly rowsPlanned: number;
  /** Options read off the values (a projected coordinate format, an export level). */
  readonly options: ReadonlyMap<string, OptionGuess>;
  /** The word beside a field left unmapped: a column seen and not taken, another way to give it. */
  readonly notes: ReadonlyMap<string, string>;
  /** Written when its kind is asked for, never offered as a guess: see _init-matrix.ts. */
  readonly askedOnly: boolean;
  /** The form drafted, for a kind of several (see _init-forms.ts). */
  readonly form?: FormPick;
}

/**
 * lon/lat by the values, when the kind reads them and no name gave either away; returns the
 * columns that might be them when the values cannot tell.
 */
function guessPoint(kind: JobKind, head: InputHead, mapping: Map<string, ColumnGuess>): string[] {
  const fields = new Set(kind.mappingFields);
  const geometry = head.rows.some((row) => row.geometry?.type === 'Point');
  const [lon, lat] = [mapping.get('lon'), mapping.get('lat')];
  if (lon !== undefined && lat !== undefined && !geometry) {
    const turned = swappedByValues(head.rows, lon.column, lat.column);
    if (turned !== undefined) mapping.set('lon', turned.lon).set('lat', turned.lat);
    return [];
  }
  if (!fields.has('lon') || !fields.has('lat') || mapping.has('lon') || mapping.has('lat') || geometry)
    return [];
  const taken = new Set([...mapping.values()].map((guess) => guess.column));
  // A column named only "number" counts rows or numbers houses: its values are never degrees. Nor
  // is a box's side (`w`, `s`, `xmin`) a point's coordinate, whether its rectangle was taken or not.
  const free = head.columns.filter(
    (column) => !taken.has(column) && !isBareNumber(column) && !isRectangleSide(column),
  );
  const point = guessPointByValues(head.rows, free);
  if ('candidates' in point) return point.candidates;
  mapping.set('lon', point.lon).set('lat', point.lat);
  return [];
}

/**
 * A feature's Point geometry is the row's position, as the jobs read it when lon/lat are not
 * mapped: columns merely named like coordinates (`x`/`y` in Gauss-Krüger metres) are not mapped
 * over it. Returns the notes that say why they were left out.
 */
function geometryOverNames(head: InputHead, mapping: Map<string, ColumnGuess>): Map<string, string> {
  const notes = new Map<string, string>();
  if (!head.rows.some((row) => row.geometry?.type === 'Point')) return notes;
  for (const field of ['lon', 'lat']) {
    const guess = mapping.get(field);
    if (guess === undefined) continue;
    mapping.delete(field);
    notes.set(
      field,
      `the features' Point geometry (${guess.column} not taken: map it to read that column instead)`,
    );
  }
  return notes;
}

function guessMapping(kind: JobKind, head: InputHead) {
  const numbers = kind.mappingFields.includes('houseNo')
    ? houseNumberColumns(head)
    : new Map<string, string | undefined>();
  const houses = new Set([...numbers].flatMap(([column, why]) => (why === undefined ? [column] : [])));
  const named = guessByName(kind.mappingFields, head.columns, houses);
  const rectangleNotes = settleRectangle(head.rows, named);
  const timeNotes = settleTime(kind, head.rows, named);
  const matrix = kind.name === 'matrix';
  const pointNotes = matrix ? new Map<string, string>() : geometryOverNames(head, named);
  const guessed = guessPoint(kind, head, named);
  const form = pickForm(kind, named);
  const pairNotes = onePerRow(kind, head.rows, named);
  // A form that reads no point leaves nothing to decide of one.
  const undecided = form === undefined || form.reads(['lon', 'lat']) ? guessed : [];
  const { mapping, moved } = matrix ? asOrigin(named) : { mapping: named, moved: false };
  // The job file lists the fields in the kind's order.
  const ordered = new Map(kind.mappingFields.flatMap((f) => (mapping.has(f) ? [[f, mapping.get(f)]] : [])));
  const notes = new Map([
    ...(matrix ? matrixNotes(mapping) : []),
    ...houseNoNote(mapping, numbers),
    ...pointNotes,
    ...rectangleNotes,
    ...timeNotes,
    ...(form?.notes ?? []),
    ...pairNotes,
  ]);
  return { mapping: ordered as Map<string, ColumnGuess>, undecided, notes, askedOnly: moved, form };
}

/** Loads and builds the drafted job and plans the first rows with it; returns what went wrong. */
async function tryDraft(draft: JobDraft, head: InputHead): Promise<{ problems: string[]; planned: number }> {
  const text = renderJobFile(draft);
  try {
    const config = parseJobFile(text, draft.jobPath, {}, 'the job file');
    // init drafts one-job files: their one step is the kind drafted.
    const step = config.steps[0];
    if (step === undefined) return { problems: ['no step'], planned: 0 };
    const job = await planningJob(step);
    const issues = new Map<string, number>();
    let planned = 0;
    for (const row of head.rows) {
      const plan = job.plan(row);
      if (!('code' in plan)) planned++;
      else issues.set(plan.message, (issues.get(plan.message) ?? 0) + 1);
    }
    if (planned * 2 >= head.rows.length) return { problems: [], planned };
    const [message = ''] = [...issues.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
    return { problems: [`most of the first rows fail as mapped: ${message}`], planned };
  } catch (error) {
    if (!isGeobatchError(error)) throw error;
    return { problems: [error.message.replace(/^the job file: /, '')], planned: 0 };
  }
}

export async function evaluate(kind: JobKind, head: InputHead, jobPath: string): Promise<Candidate> {
  const { mapping, undecided, notes, askedOnly, form } = guessMapping(kind, head);
  const options = guessOptions(kind, mapping, head.rows);
  const draft: JobDraft = { kind, head, jobPath, mapping, options, problems: [], alternatives: [] };
  const { problems, planned } = await tryDraft(draft, head);
  return {
    kind,
    mapping,
    undecided,
    problems,
    rowsPlanned: planned,
    options,
    notes,
    askedOnly,
    ...(form === undefined ? {} : { form }),
  };
}

/**
 * How much of the input a candidate reads: its mapped columns, and a feature's Point geometry as
 * the two it stands for when the kind reads its point from it. Counted as none, a GeoJSON point
 * file with an `id` property was drafted as an identifier-lookup, every row a paid NOT_FOUND.
 */
function read(candidate: Candidate, head: InputHead): number {
  const { kind, mapping } = candidate;
  const fromGeometry =
    kind.mappingFields.includes('lon') &&
    kind.mappingFields.includes('lat') &&
    !mapping.has('lon') &&
    !mapping.has('lat') &&
    head.rows.some((row) => row.geometry?.type === 'Point');
  return mapping.size + (fromGeometry ? 2 : 0);
}

/** Every kind tried on the input; the candidates that can run it, best first (see the module comment). */
export async function rankKinds(head: InputHead, jobPath: string): Promise<Candidate[]> {
  const tried = await Promise.all(JOB_KINDS.map((kind) => evaluate(kind, head, jobPath)));
  return (
    tried
      .map((candidate, order) => ({ candidate, order }))
      // Without a row to plan, only what the names say counts: a kind that maps nothing proves nothing.
      .filter(
        ({ candidate }) =>
          candidate.problems.length === 0 &&
          !candidate.askedOnly &&
          (head.rows.length > 0 || candidate.mapping.size > 0),
      )
      .sort((a, b) => read(b.candidate, head) - read(a.candidate, head) || a.order - b.order)
      .map(({ candidate }) => candidate)
  );
}
