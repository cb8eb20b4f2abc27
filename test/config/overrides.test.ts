import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { isGeobatchError, UsageError } from '../../src/errors.js';

const config = parseJobFile('job: elevation\ninput: in.csv\noutput: out.csv\n', '/jobs/elev.yaml', {});

describe('applyOverrides', () => {
  it('resolves command-line paths against the working directory and moves the report with the output', () => {
    const next = applyOverrides(config, { output: 'elsewhere/result.ndjson' });
    expect(next.output.path).toBe(path.resolve('elsewhere/result.ndjson'));
    expect(next.output.format).toBe('ndjson');
    expect(next.errors.path).toBe(path.resolve('elsewhere/result.errors.csv'));
    expect(next.input).toBe(config.input);
  });

  it('sets concurrency and rate, 0 meaning no client-side rate limit', () => {
    const next = applyOverrides(config, { concurrency: 32, rate: 0 });
    expect(next.service.throttle?.global).toMatchObject({ concurrency: 32, rate: null });
  });

  it('rejects a bad flag value with the flag and the value', () => {
    expect(() => applyOverrides(config, { concurrency: 0 })).toThrow(UsageError);
    try {
      applyOverrides(config, { format: 'xlsx' });
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).code).toBe('USAGE');
      expect((error as UsageError).context).toMatchObject({ field: 'format', received: 'xlsx' });
    }
  });

  it('writes an output in the format its extension says, and refuses an extension geobatch does not write', () => {
    expect(applyOverrides(config, { output: 'x.geojson' }).output.format).toBe('geojson');
    expect(applyOverrides(config, { output: 'x.jsonl' }).output.format).toBe('ndjson');
    expect(applyOverrides(config, { output: 'x.tsv' }).output.format).toBe('csv');
    const error = thrown(() => applyOverrides(config, { output: 'x.gpkg' }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      `-o/--output: geobatch does not write .gpkg files (${path.resolve('x.gpkg')}); known extensions: .csv .tsv .txt .ndjson .jsonl .geojson .json`,
    );
    expect(error.context).toMatchObject({ field: 'output', received: path.resolve('x.gpkg') });
  });

  it('takes --format for a path without extension, and refuses one that contradicts the extension', () => {
    expect(applyOverrides(config, { output: 'result', format: 'ndjson' }).output.format).toBe('ndjson');
    expect(applyOverrides(config, { output: '-', format: 'geojson' }).output.format).toBe('geojson');
    expect(applyOverrides(config, { output: 'result' }).output.format).toBe('csv');
    const error = thrown(() => applyOverrides(config, { output: 'x.csv', format: 'ndjson' }));
    expect(error.code).toBe('USAGE');
    expect(error.context).toMatchObject({ field: 'format', expected: 'csv', received: 'ndjson' });
    // The job file's own path (out.csv) is not relabelled by --format either.
    expect(thrown(() => applyOverrides(config, { format: 'ndjson' })).code).toBe('USAGE');
  });

  it("writes a report named with -e in its extension's format, whatever the job file says", () => {
    const ndjsonReport = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: out.csv\nerrors:\n  format: ndjson\n',
      '/jobs/elev.yaml',
      {},
    );
    expect(ndjsonReport.errors.format).toBe('ndjson');
    expect(applyOverrides(ndjsonReport, { errors: 'x.csv' }).errors).toEqual({
      path: path.resolve('x.csv'),
      format: 'csv',
    });
    expect(applyOverrides(config, { errors: 'x.jsonl' }).errors.format).toBe('ndjson');
    expect(applyOverrides(ndjsonReport, { errors: 'failures' }).errors.format).toBe('ndjson');
    const error = thrown(() => applyOverrides(config, { errors: 'x.xlsx' }));
    expect(error.message).toContain('-e/--errors: geobatch does not write .xlsx files');
    expect(error.context).toMatchObject({ field: 'errors' });
  });

  it("holds the job file's own paths to the same rule: an extension alone must be one geobatch writes", () => {
    const gpkg = parseJobFile('job: elevation\ninput: in.csv\noutput: out.gpkg\n', '/jobs/elev.yaml', {});
    let error: unknown;
    try {
      applyOverrides(gpkg, {});
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: '/jobs/elev.yaml',
      path: 'output',
    });
    const named = parseJobFile(
      'job: elevation\ninput: in.csv\noutput:\n  path: out.dat\n  format: csv\n',
      '/jobs/e.yaml',
      {},
    );
    expect(applyOverrides(named, {}).output.format).toBe('csv');
    const jsonl = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: out.csv\nerrors: failed.jsonl\n',
      '/jobs/e.yaml',
      {},
    );
    expect(applyOverrides(jsonl, {}).errors).toEqual({ path: '/jobs/failed.jsonl', format: 'ndjson' });
  });

  it('turns the formula guard off for --no-formula-guard only', () => {
    expect(applyOverrides(config, { formulaGuard: false }).output.formulaGuard).toBe(false);
    expect(applyOverrides(config, {}).output.formulaGuard).toBeUndefined();
  });
});

function thrown(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a UsageError');
}
