/**
 * A match run stopped inside a track keeps the rows up to the end of the last track written whole:
 * its checkpoint carries the files' lengths there, and the resume sends the requests of the cut
 * track and those after it, and no other. Before, a stop before the first periodic checkpoint kept
 * nothing (every track paid for again), and one after it kept that checkpoint, cutting the tracks
 * written since.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import type { Journal } from '../../src/run/checkpoint.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { openGpkg, rows } from '../output/_gpkg-read.js';

const TRACKS = 10;
const FIXES = 20;
/** Tracks with a fix that fails on its own (a bad latitude), written with its track's rows. */
const BAD = new Set([2, 5, 8]);

/** Track t (1-based) begins at this row index. */
const firstRow = (track: number) => (track - 1) * FIXES;

function tracksCsv(tracks: number): string {
  const lines = ['track_id,time,lat,lon'];
  for (let t = 1; t <= tracks; t++) {
    for (let i = 0; i < FIXES; i++) {
      const time = new Date(Date.UTC(2024, 4, 6, 6, 0, i * 10)).toISOString().replace('.000', '');
      const lat = BAD.has(t) && i === 2 ? 'x' : (53.55 - i * 0.001 - t * 0.01).toFixed(5);
      lines.push(`T${String(t).padStart(2, '0')},${time},${lat},${(9.99 + i * 0.002).toFixed(5)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

let emulator: EmulatorHandle;
let dir: string;
let job: string;

beforeAll(async () => {
  dir = tempDir();
  emulator = await startEmulator({});
  write(join(dir, 'tracks.csv'), tracksCsv(TRACKS));
  // Windows of 8 fixes: a track takes several requests, and the rows of its first window are
  // written before its last one is asked, so that a quota can stop the run inside a track.
  const options = 'options:\n  maxPoints: 8\n  overlap: 2\n';
  const mapping = 'mapping:\n  track: track_id\n  time: time\n';
  job = write(
    join(dir, 'match.yaml'),
    `job: match\ninput: tracks.csv\noutput: out.csv\n${mapping}${options}`,
  );
});

afterAll(async () => {
  await emulator.close();
});

/** One request at a time: the quota's refusal lands on a known request. */
function run(outputs: readonly string[], errors: string, extra: Parameters<typeof runJobFile>[1] = {}) {
  return runJobFile(job, {
    emulator,
    output: outputs.map((name) => join(dir, name)),
    errors: join(dir, errors),
    concurrency: 1,
    ...extra,
  });
}

/** Requests of the tracks before `track`: a run over their rows alone. */
async function requestsBefore(track: number, name: string): Promise<number> {
  const input = write(join(dir, `${name}.csv`), tracksCsv(track - 1));
  emulator.setFaults({});
  const head = await run([`${name}.out.csv`], `${name}.errors.csv`, { input });
  expect(head.error).toBeNull();
  return head.requests.sent;
}

function journalOf(output: string): Journal {
  return JSON.parse(readFileSync(join(dir, `${output}.checkpoint.json`), 'utf8')) as Journal;
}

/** Routing requests the emulator received since `since` was taken. */
function routingSince(since: number): number {
  return emulator.requestLog().filter((entry) => entry.seq > since && entry.interface === 'routing').length;
}

const lastSeq = () => emulator.requestLog().at(-1)?.seq ?? 0;

describe('a match run stopped inside a track', () => {
  it('keeps the rows of the tracks before it, before the first periodic checkpoint, and the resume asks only the rest', async () => {
    emulator.setFaults({});
    const reference = await run(['ref1.csv', 'ref1.ndjson', 'ref1.gpkg'], 'ref1.errors.csv');
    expect(reference.ended).toBe('complete_with_failures');
    expect(reference.rows.failed).toBe(BAD.size);

    const track = 5;
    const before = await requestsBefore(track, 'head5');
    // The first request of track 5 is answered, its first rows written; the next is refused.
    emulator.setFaults({ quotaAfter: before + 1 });
    const { logger, lines } = memoryLogger();
    const outputs = ['out1.csv', 'out1.ndjson', 'out1.gpkg'];
    const stopped = await run(outputs, 'out1.errors.csv', { logger });
    expect(stopped.ended).toBe('stopped');
    expect(stopped.error?.code).toBe('QUOTA_EXCEEDED');
    // Rows of track 5 were written (its bad fix among them): the stop is inside it.
    expect(stopped.rows.written).toBeGreaterThan(firstRow(track) + 3);
    expect(stopped.rows.written).toBeLessThan(firstRow(track + 1));
    expect(stopped.resume.checkpoint).toBe(join(dir, 'out1.csv.checkpoint.json'));
    // The summary says what the checkpoint commits, fewer rows than were written.
    expect(stopped.resume.checkpointRows).toBe(firstRow(track));
    const journal = journalOf('out1.csv');
    expect(journal.committedRows).toBe(firstRow(track));
    // Its counts are of the rows it commits: tracks 2's bad fix failed, track 5's is not counted.
    expect(journal.counters).toMatchObject({
      rowsEmitted: firstRow(track),
      rowsOk: firstRow(track) - 1,
      rowsFailed: 1,
      failuresByCode: { FIELD_INVALID: 1 },
    });
    expect(lines().map((line) => String(line.msg))).toContainEqual(
      expect.stringContaining(
        `after row ${stopped.rows.written}: the checkpoint keeps rows 1-${firstRow(track)}, whole groups, and a resume answers the rows from row ${firstRow(track) + 1}`,
      ),
    );

    emulator.setFaults({});
    const since = lastSeq();
    const resumed = await run(outputs, 'out1.errors.csv', { resume: true });
    expect(resumed.ended).toBe(reference.ended);
    expect(resumed.resume).toMatchObject({ resumed: true, fromRow: firstRow(track) });
    // Only the requests of tracks 5 on: those of tracks 1-4 are not bought again.
    expect(routingSince(since)).toBe(reference.requests.sent - before);
    expect(resumed.rows).toEqual(reference.rows);
    expect(read(join(dir, 'out1.csv'))).toBe(read(join(dir, 'ref1.csv')));
    expect(read(join(dir, 'out1.ndjson'))).toBe(read(join(dir, 'ref1.ndjson')));
    expect(read(join(dir, 'out1.errors.csv'))).toBe(read(join(dir, 'ref1.errors.csv')));
    // A GeoPackage is cut back by its feature count: the same features, and the same extent.
    const features = (name: string) => {
      const db = openGpkg(join(dir, `${name}.gpkg`));
      try {
        return {
          features: rows(db, `SELECT * FROM "${name}" ORDER BY fid`),
          extent: rows(db, 'SELECT min_x, min_y, max_x, max_y FROM gpkg_contents'),
        };
      } finally {
        db.close();
      }
    };
    expect(features('out1')).toEqual(features('ref1'));
  });

  it('keeps the tracks written since the checkpoint it resumed from, when it stops again', async () => {
    emulator.setFaults({});
    const reference = await run(['ref2.geojson'], 'ref2.errors.ndjson');
    expect(reference.ended).toBe('complete_with_failures');
    const [first, second] = [3, 8];
    const beforeFirst = await requestsBefore(first, 'head3');
    const beforeSecond = await requestsBefore(second, 'head8');
    const outputs = ['out2.geojson'];

    // Track 3's first request is refused: the stop comes between tracks, and commits tracks 1-2.
    emulator.setFaults({ quotaAfter: beforeFirst });
    const stopped = await run(outputs, 'out2.errors.ndjson');
    expect(stopped.ended).toBe('stopped');
    expect(stopped.rows.written).toBe(firstRow(first));
    expect(journalOf('out2.geojson').committedRows).toBe(firstRow(first));

    // The resumed session stops inside track 8, long before a periodic checkpoint of its own:
    // it keeps tracks 3-7, not only the checkpoint it began from.
    emulator.setFaults({ quotaAfter: beforeSecond - beforeFirst + 1 });
    const again = await run(outputs, 'out2.errors.ndjson', { resume: true });
    expect(again.ended).toBe('stopped');
    expect(again.error?.code).toBe('QUOTA_EXCEEDED');
    expect(again.rows.written).toBeGreaterThan(firstRow(second) - firstRow(first));
    expect(journalOf('out2.geojson')).toMatchObject({
      committedRows: firstRow(second),
      // Tracks 2's and 5's bad fixes; not track 8's, written after the mark.
      counters: { rowsEmitted: firstRow(second), rowsFailed: 2 },
    });

    emulator.setFaults({});
    const since = lastSeq();
    const resumed = await run(outputs, 'out2.errors.ndjson', { resume: true });
    expect(resumed.ended).toBe(reference.ended);
    expect(resumed.resume).toMatchObject({ resumed: true, fromRow: firstRow(second) });
    expect(routingSince(since)).toBe(reference.requests.sent - beforeSecond);
    expect(resumed.rows).toEqual(reference.rows);
    expect(read(join(dir, 'out2.geojson'))).toBe(read(join(dir, 'ref2.geojson')));
    expect(read(join(dir, 'out2.errors.ndjson'))).toBe(read(join(dir, 'ref2.errors.ndjson')));
  });

  it('keeps whole tracks in a steps: run whose first step does not group and whose second does', async () => {
    const steps = write(
      join(dir, 'steps.yaml'),
      'input: tracks.csv\noutput: steps.csv\nsteps:\n' +
        '  - job: elevation\n    mapping: { lon: lon, lat: lat }\n    options: { prefix: ele_ }\n' +
        '  - job: match\n    mapping: { track: track_id, time: time }\n' +
        '    options: { prefix: match_, maxPoints: 8, overlap: 2 }\n',
    );
    const runSteps = (output: string, extra: Parameters<typeof runJobFile>[1] = {}) =>
      runJobFile(steps, { emulator, output: join(dir, output), concurrency: 1, ...extra });
    emulator.setFaults({});
    const reference = await runSteps('ref4.csv');
    expect(reference.ended).toBe('complete_with_failures');
    const [elevation, match] = reference.steps ?? [];
    const track = 4;
    const matchBefore = await requestsBefore(track, 'head4');
    // The elevation step's requests leave first (its batches fill as the rows are read).
    emulator.setFaults({ quotaAfter: (elevation?.requests.sent ?? 0) + matchBefore + 1 });
    const stopped = await runSteps('out4.csv');
    expect(stopped.ended).toBe('stopped');
    expect(stopped.rows.written).toBeGreaterThan(firstRow(track));
    expect(stopped.rows.written).toBeLessThan(firstRow(track + 1));
    expect(journalOf('out4.csv').committedRows).toBe(firstRow(track));

    emulator.setFaults({});
    const since = lastSeq();
    const resumed = await runSteps('out4.csv', { resume: true });
    expect(resumed.resume).toMatchObject({ resumed: true, fromRow: firstRow(track) });
    expect(routingSince(since)).toBe((match?.requests.sent ?? 0) - matchBefore);
    expect(resumed.rows).toEqual(reference.rows);
    expect(read(join(dir, 'out4.csv'))).toBe(read(join(dir, 'ref4.csv')));
    expect(read(join(dir, 'out4.errors.csv'))).toBe(read(join(dir, 'ref4.errors.csv')));
  });

  it('keeps nothing when it stops inside the first track, and says so', async () => {
    emulator.setFaults({ quotaAfter: 1 });
    const { logger, lines } = memoryLogger();
    const stopped = await run(['out3.csv'], 'out3.errors.csv', { logger });
    expect(stopped.ended).toBe('stopped');
    expect(stopped.error?.code).toBe('QUOTA_EXCEEDED');
    expect(stopped.rows.written).toBeGreaterThan(0);
    expect(stopped.resume.checkpoint).toBeNull();
    expect(existsSync(join(dir, 'out3.csv.checkpoint.json'))).toBe(false);
    expect(existsSync(join(dir, 'out3.csv.partial'))).toBe(false);
    expect(lines().map((line) => String(line.msg))).toContainEqual(
      `Stopped inside the first group of rows, after row ${stopped.rows.written}: no group was written whole, so no row is kept, and the next run starts from the first row`,
    );
  });
});
