/**
 * Several outputs from one run: CSV, NDJSON, GeoJSON and GeoPackage written from the same
 * outcomes in one pass, checkpointed together, resumed together, listed in the summary.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { check } from '@placemarkio/check-geojson';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { partialPath } from '../../src/output/_sink.js';
import type { OutputSpec } from '../../src/output/files.js';
import type { RunSummary } from '../../src/output/summary.js';
import { journalPath, outputMarks, readJournal } from '../../src/run/checkpoint.js';
import { acquireLock, lockPath } from '../../src/run/lock.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { type FakeJobOptions, fakeJob } from '../engine/_fake.js';
import { geojsonInput, memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { openGpkg, rows } from '../output/_gpkg-read.js';

const ROWS = 300;
const BAD = new Set([7, 150, 151, 299]);
const JOB: FakeJobOptions = { omit: (key) => key === 'k42' || key === 'k210' };

/** out.csv first, then out.ndjson, out.geojson and out.gpkg, over in.geojson in `dir`. */
function specOf(dir: string, job: FakeJobOptions = JOB, spec: Partial<RunSpec> = {}) {
  const { logger, lines } = memoryLogger();
  const fake = fakeJob(job);
  const [output, ...moreOutputs] = (['csv', 'ndjson', 'geojson', 'gpkg'] as const).map(
    (format): OutputSpec => ({ path: join(dir, `out.${format}`), format }),
  ) as [OutputSpec, ...OutputSpec[]];
  const full: RunSpec = {
    job: fake,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.geojson'), format: 'geojson' },
    output,
    moreOutputs,
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 10 },
    ...spec,
  };
  return { spec: full, fake, lines };
}

function prepared(): string {
  const dir = tempDir();
  write(join(dir, 'in.geojson'), geojsonInput(ROWS, BAD));
  return dir;
}

type Record3 = [string, string, string];

/** Each output's records as [status, error, id], in file order. */
function records(dir: string): Record<'csv' | 'ndjson' | 'geojson' | 'gpkg', Record3[]> {
  const triple = (o: Record<string, unknown>): Record3 => [
    String(o.geobatch_status),
    String(o.geobatch_error),
    String(o.id ?? ''),
  ];
  const db = openGpkg(join(dir, 'out.gpkg'));
  try {
    return {
      csv: (parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, unknown>[]).map(triple),
      ndjson: read(join(dir, 'out.ndjson'))
        .trim()
        .split('\n')
        .map((line) => triple(JSON.parse(line))),
      geojson: (check(read(join(dir, 'out.geojson'))) as GeoJSON.FeatureCollection).features.map((f) =>
        triple(f.properties ?? {}),
      ),
      gpkg: rows(db, 'SELECT * FROM "out" ORDER BY fid').map(triple),
    };
  } finally {
    db.close();
  }
}

/** The GeoPackage's features, every column and the geometry blob, for comparing two runs. */
function gpkgFeatures(dir: string): Record<string, unknown>[] {
  const db = openGpkg(join(dir, 'out.gpkg'));
  try {
    return rows(db, 'SELECT * FROM "out" ORDER BY fid');
  } finally {
    db.close();
  }
}

/** A run of JOB stopped after `after` rows were requested: its checkpoint and .partial files kept. */
async function interrupted(after = 60): Promise<{ dir: string; stopped: RunSummary }> {
  const dir = prepared();
  const controller = new AbortController();
  const first = specOf(dir, {
    ...JOB,
    delay: () => 1,
    onExecute: () => {
      if (first.fake.executedRows.size >= after) controller.abort();
    },
  });
  const stopped = await runJob({
    ...first.spec,
    signal: controller.signal,
    engine: { window: 32, concurrency: 4 },
  });
  return { dir, stopped };
}

describe('runJob: several outputs from one pass', () => {
  it('writes CSV, NDJSON, GeoJSON and GeoPackage with the same records, each row requested once, and lists them all', async () => {
    const dir = prepared();
    const { spec, fake } = specOf(dir);
    const summary = await runJob(spec);
    expect(fake.calls.flat()).toHaveLength(ROWS - BAD.size);
    const all = records(dir);
    expect(all.csv).toHaveLength(ROWS);
    expect(all.csv.filter(([status]) => status === 'failed')).toHaveLength(6);
    for (const format of ['ndjson', 'geojson', 'gpkg'] as const) expect(all[format], format).toEqual(all.csv);
    expect(summary.outputs).toEqual(
      ['csv', 'ndjson', 'geojson', 'gpkg'].map((format) => ({
        path: join(dir, `out.${format}`),
        format,
        records: ROWS,
        written: true,
      })),
    );
    expect(summary.output).toEqual(summary.outputs[0]);
    expect(summary).toMatchObject({ ended: 'complete_with_failures', rows: { written: ROWS, failed: 6 } });
    // One lock, checkpoint, summary and run report, named after the first output; nothing partial left.
    expect(readdirSync(dir).sort()).toEqual([
      'errors.csv',
      'in.geojson',
      'out.csv',
      'out.csv.report.html',
      'out.csv.summary.json',
      'out.geojson',
      'out.gpkg',
      'out.ndjson',
    ]);
    expect(JSON.parse(read(join(dir, 'out.csv.summary.json'))).outputs).toEqual(summary.outputs);
  });

  it('records every output in the checkpoint, and resumes all of them as an uninterrupted run writes them', async () => {
    const { dir, stopped } = await interrupted(120);
    expect(stopped).toMatchObject({ ended: 'stopped', error: { code: 'ABORTED' } });
    expect(stopped.outputs.map((o) => o.written)).toEqual([false, false, false, false]);
    const journal = await readJournal(journalPath(join(dir, 'out.csv')));
    if (journal === undefined) throw new Error('no checkpoint');
    expect(journal.committedRows).toBeGreaterThan(0);
    expect(outputMarks(journal).map((mark) => mark.target)).toEqual(
      ['csv', 'ndjson', 'geojson', 'gpkg'].map((format) => join(dir, `out.${format}`)),
    );
    expect(outputMarks(journal).map((mark) => mark.state.records)).toEqual([
      journal.committedRows,
      journal.committedRows,
      journal.committedRows,
      journal.committedRows,
    ]);
    for (const format of ['csv', 'ndjson', 'geojson', 'gpkg'])
      expect(existsSync(partialPath(join(dir, `out.${format}`))), format).toBe(true);

    const resumed = specOf(dir, JOB, { resume: true });
    const summary = await runJob(resumed.spec);
    expect(Math.min(...resumed.fake.executedRows)).toBeGreaterThanOrEqual(journal.committedRows);
    expect(summary).toMatchObject({ ended: 'complete_with_failures', resume: { resumed: true } });
    expect(summary.outputs.map((o) => [o.records, o.written])).toEqual([
      [ROWS, true],
      [ROWS, true],
      [ROWS, true],
      [ROWS, true],
    ]);

    const reference = prepared();
    await runJob(specOf(reference).spec);
    for (const file of ['out.csv', 'out.ndjson', 'out.geojson', 'errors.csv'])
      expect(read(join(dir, file)), file).toBe(read(join(reference, file)));
    expect(gpkgFeatures(dir)).toEqual(gpkgFeatures(reference));
  });

  it('refuses to resume with other outputs (CHECKPOINT_MISMATCH), naming both lists', async () => {
    const { dir } = await interrupted();
    const fewer = specOf(dir, JOB, { resume: true });
    const error = await runJob({ ...fewer.spec, moreOutputs: fewer.spec.moreOutputs?.slice(0, 2) }).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context.expected).toContain(join(dir, 'out.gpkg'));
    expect(isGeobatchError(error) && error.context.received).not.toContain(join(dir, 'out.gpkg'));
    expect(fewer.fake.calls).toHaveLength(0);
  });

  it('without resume, names the .partial files the checkpoint recorded for outputs no longer written among those to delete', async () => {
    const { dir } = await interrupted();
    const error = await runJob(specOf(dir, JOB, { moreOutputs: [] }).spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    const files = ['out.csv', 'errors.csv', 'out.ndjson', 'out.geojson', 'out.gpkg'].map((name) =>
      partialPath(join(dir, name)),
    );
    expect(isGeobatchError(error) && error.context.hint).toContain(
      `delete ${[journalPath(join(dir, 'out.csv')), ...files].join(', ')} to start over`,
    );
  });

  it('with restartIfChanged, deletes the .partial files the checkpoint recorded for outputs it no longer writes, and says so', async () => {
    const { dir } = await interrupted();
    const at = (name: string) => join(dir, name);
    for (const format of ['csv', 'ndjson', 'geojson', 'gpkg'])
      expect(existsSync(partialPath(at(`out.${format}`))), format).toBe(true);
    // Not the interrupted run's to delete: a file another run is writing, one replaced since, and
    // one the checkpoint never recorded.
    const held = await acquireLock(lockPath(at('out.geojson')));
    write(partialPath(at('out.ndjson')), 'x');
    write(at('other.csv.partial'), 'someone else');
    write(journalPath(at('errors.csv')), '{}');

    // The job file now names out.csv alone, and another error report.
    const { spec, lines } = specOf(dir, JOB, {
      resume: true,
      restartIfChanged: true,
      moreOutputs: [],
      report: { path: at('failed.csv'), format: 'csv' },
    });
    try {
      const summary = await runJob(spec);
      expect(summary).toMatchObject({
        ended: 'complete_with_failures',
        resume: { resumed: false, fromRow: 0 },
      });
    } finally {
      await held.release();
    }
    expect(readdirSync(dir).sort()).toEqual(
      [
        'errors.csv.checkpoint.json',
        'errors.csv.partial',
        'failed.csv',
        'in.geojson',
        'other.csv.partial',
        'out.csv',
        'out.csv.report.html',
        'out.csv.summary.json',
        'out.geojson.partial',
        'out.ndjson.partial',
      ].sort(),
    );
    const said = lines()
      .filter((line) => line.level === 40)
      .map((line) => String(line.msg).replaceAll(dir, '<dir>'));
    expect(said).toContain(
      'Deleted <dir>/out.gpkg.partial: the interrupted run wrote it for <dir>/out.gpkg, which this run does not write',
    );
    expect(said).toContain(
      `Kept <dir>/out.geojson.partial, recorded by the checkpoint: Another run is already writing <dir>/out.geojson (pid ${process.pid})`,
    );
    expect(said).toContain(
      "Kept <dir>/errors.csv.partial, recorded by the checkpoint: <dir>/errors.csv.checkpoint.json beside it is another run's checkpoint",
    );
    expect(said.find((line) => line.startsWith('Kept <dir>/out.ndjson.partial'))).toMatch(
      /^Kept <dir>\/out\.ndjson\.partial, recorded by the checkpoint: it is shorter \(1 byte\) than the checkpoint has it \(\d+ bytes\)$/,
    );
  });

  it.each([
    [
      'standard output among several',
      { output: { path: '-', format: 'csv' } },
      'Standard output (`-`) can only be the one output of a run',
    ],
    [
      'a GeoPackage to standard output',
      { output: { path: '-', format: 'gpkg' }, moreOutputs: [] },
      'A GeoPackage cannot be written to standard output',
    ],
    [
      'the same output twice',
      { moreOutputs: [{ path: 'SAME', format: 'csv' }] },
      "The output <dir>/out.csv is named twice (the job file's outputs:, or -o)",
    ],
    [
      'an error report that is an output',
      { report: { path: 'OUT_GEOJSON', format: 'csv' } },
      'The error report <dir>/out.geojson must be a file of its own: it is also an output',
    ],
    [
      'an error report that is the input (a report fed back)',
      { report: { path: 'INPUT', format: 'csv' } },
      'The error report <dir>/in.geojson must be a file of its own: it is also the input',
    ],
    [
      'a run report that is an output',
      { runReport: 'OUT_GEOJSON' },
      'The run report <dir>/out.geojson must be a file of its own: it is also an output',
    ],
    [
      'a run report that is the error report',
      { runReport: 'ERRORS' },
      'The run report <dir>/errors.csv must be a file of its own: it is also the error report',
    ],
  ] as const)('refuses %s before anything is written (USAGE)', async (_, change, message) => {
    const dir = prepared();
    const { spec, fake } = specOf(dir);
    const named = (path: string) =>
      ({
        SAME: spec.output.path,
        OUT_GEOJSON: join(dir, 'out.geojson'),
        ERRORS: join(dir, 'errors.csv'),
        INPUT: join(dir, 'in.geojson'),
      })[path] ?? path;
    const patched = JSON.parse(JSON.stringify(change), (key, value) =>
      key === 'path' || key === 'runReport' ? named(value) : value,
    ) as Partial<RunSpec>;
    const error = await runJob({ ...spec, ...patched }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message.replaceAll(dir, '<dir>')).toBe(message);
    if (message.includes('of its own'))
      expect(isGeobatchError(error) && error.context.hint).toMatch(
        /^Name another file for the (error report \(-e, or the job file's errors:\)|run report \(--report, or the job file's report:\))\.$/,
      );
    expect(fake.calls).toHaveLength(0);
    expect(readdirSync(dir)).toEqual(['in.geojson']);
  });
});

describe('runJob: input geometries in the outputs', () => {
  it('writes a feature whose geometry RFC 7946 forbids as a failed row with its properties and no geometry', async () => {
    const dir = tempDir();
    const feature = (id: string, geometry: unknown) => ({ type: 'Feature', properties: { id }, geometry });
    const features = [
      feature('0', { type: 'Point', coordinates: [8.4, 49] }),
      feature('1', { type: 'Point', coordinates: [200, 95] }),
      feature('2', {
        type: 'Polygon',
        coordinates: [
          [
            [8, 49],
            [9, 49],
            [9, 50],
            [8, 50],
          ],
        ],
      }),
      feature('3', { type: 'LineString', coordinates: [[8, 49]] }),
    ];
    write(join(dir, 'in.geojson'), JSON.stringify({ type: 'FeatureCollection', features }));
    const { spec, fake } = specOf(dir);
    await runJob(spec);
    // Nothing is asked for a row whose geometry cannot be drawn.
    expect(fake.calls.flat().map((item) => item.row)).toEqual([0]);
    const expected: Record3[] = [
      ['ok', '', '0'],
      ['failed', 'INPUT_MALFORMED', '1'],
      ['failed', 'INPUT_MALFORMED', '2'],
      ['failed', 'INPUT_MALFORMED', '3'],
    ];
    expect(records(dir)).toEqual({ csv: expected, ndjson: expected, geojson: expected, gpkg: expected });
    const written = check(read(join(dir, 'out.geojson'))) as GeoJSON.FeatureCollection;
    expect(written.features.map((f) => f.geometry)).toEqual([features[0]?.geometry, null, null, null]);
    expect(gpkgFeatures(dir).map((row) => row.geom === null)).toEqual([false, true, true, true]);
    const report = parse(read(join(dir, 'errors.csv')), { columns: true }) as Record<string, string>[];
    expect(report.map((r) => [r.geobatch_row, r.id, r.geobatch_message])).toEqual([
      [
        '2',
        '1',
        'Invalid GeoJSON feature: expected positions of a longitude from -180 to 180 and a latitude from -90 to 90, got [200,95]',
      ],
      [
        '3',
        '2',
        'Invalid GeoJSON feature: expected ring 1 of the Polygon to be closed, ending at its first position [8,49], got [8,50]',
      ],
      ['4', '3', 'Invalid GeoJSON feature: expected the LineString to have two positions or more, got one'],
    ]);
  });
});
