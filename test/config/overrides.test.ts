import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type JobConfig, parseJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { isGeobatchError, UsageError } from '../../src/errors.js';
import { checkJobFiles, outputSpec } from '../../src/run/assemble.js';

const config = parseJobFile('job: elevation\ninput: in.csv\noutput: out.csv\n', '/jobs/elev.yaml', {});

describe('applyOverrides', () => {
  it('resolves command-line paths against the working directory and moves the report with the output', () => {
    const next = applyOverrides(config, { output: 'elsewhere/result.ndjson' });
    expect(next.output.path).toBe(path.resolve('elsewhere/result.ndjson'));
    expect(next.output.format).toBe('ndjson');
    expect(next.errors.path).toBe(path.resolve('elsewhere/result.ndjson.errors.csv'));
    expect(next.input).toBe(config.input);
  });

  it('sets concurrency and rate, 0 meaning no client-side rate limit', () => {
    const next = applyOverrides(config, { concurrency: 32, rate: 0 });
    expect(next.service.throttle?.global).toMatchObject({ concurrency: 32, rate: null });
  });

  it("names the embedded emulator as the source of the addresses it set, not the file's or a variable's", () => {
    const env = { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:9/x' };
    const loaded = parseJobFile('job: elevation\ninput: in.csv\noutput: out.csv\n', '/jobs/elev.yaml', env);
    expect(loaded.service.endpointSources).toMatchObject({ elevation: 'GEOBATCH_EMULATOR_URL' });
    const next = applyOverrides(loaded, {
      service: { endpoints: { elevation: 'http://127.0.0.1:8' }, credentials: {} },
    });
    expect(next.service.endpointSources).toMatchObject({
      elevation: 'the embedded emulator (--emulator)',
      geojson: 'GEOBATCH_EMULATOR_URL',
    });
  });

  it('says a library caller’s string is one, where "got `8`" read as if 8 were refused', () => {
    const refused = (overrides: object) => {
      try {
        applyOverrides(config, overrides as never);
      } catch (error) {
        return error;
      }
      throw new Error('not refused');
    };
    expect(refused({ concurrency: '8' })).toMatchObject({
      code: 'USAGE',
      message: '--concurrency: expected a positive integer, got the string "8"',
      context: { field: 'concurrency', received: '8' },
    });
    expect(refused({ rate: '5' })).toMatchObject({
      message: '--rate: expected a non-negative number, got the string "5"',
    });
    // The command line's numbers are quoted as they were.
    expect(refused({ concurrency: 1.5 })).toMatchObject({
      message: '--concurrency: expected a positive integer, got `1.5`',
    });
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

  it("gives -o outputs the job file's BOM and decimal mark, and a delimiter only between names alike: TAB for a .tsv", () => {
    const german = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: { path: orte.csv, bom: true, delimiter: ";", decimal: "," }\n',
      '/jobs/elev.yaml',
      {},
    );
    const written = (overrides: object) => outputSpec(applyOverrides(german, overrides).output);
    expect(written({ output: 'x.tsv' })).toMatchObject({ delimiter: '\t', bom: true, decimal: ',' });
    expect(written({ output: 'y.csv' })).toMatchObject({ delimiter: ';', bom: true, decimal: ',' });
    const tabbed = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: { path: orte.tsv, delimiter: "\\t" }\n',
      '/jobs/elev.yaml',
      {},
    );
    expect(outputSpec(applyOverrides(tabbed, { output: 'y.csv' }).output).delimiter).toBeUndefined();
    expect(outputSpec(applyOverrides(tabbed, { output: 'z.tsv' }).output).delimiter).toBe('\t');
  });

  it('writes an output in the format its extension says, and refuses an extension geobatch does not write', () => {
    expect(applyOverrides(config, { output: 'x.geojson' }).output.format).toBe('geojson');
    expect(applyOverrides(config, { output: 'x.jsonl' }).output.format).toBe('ndjson');
    expect(applyOverrides(config, { output: 'x.tsv' }).output.format).toBe('csv');
    expect(applyOverrides(config, { output: 'x.GPKG' }).output.format).toBe('gpkg');
    const error = thrown(() => applyOverrides(config, { output: 'x.xlsx' }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      `-o/--output: geobatch does not write .xlsx files (${path.resolve('x.xlsx')}); known extensions: .csv .tsv .txt .ndjson .jsonl .geojson .json .gpkg`,
    );
    expect(error.context).toMatchObject({
      field: 'output',
      received: path.resolve('x.xlsx'),
      // A workbook is what an analyst wants for Excel: the hint says how CSV gets there.
      hint: expect.stringContaining(
        'geobatch writes no workbook: write .csv, which Excel opens by double-click',
      ),
    });
    expect(thrown(() => applyOverrides(config, { output: 'x.ODS' })).context.hint).toContain(
      'bom: true, delimiter: ";", decimal: ","',
    );
    const shapefile = thrown(() => applyOverrides(config, { output: 'x.shp' }));
    expect(shapefile.context).toMatchObject({
      field: 'output',
      hint: "Use one of .csv .tsv .txt .ndjson .jsonl .geojson .json .gpkg, or a path without extension (written in the format --format names, else in the job file's).",
    });
  });

  it('writes several outputs for -o given more than once, each in its format, the report beside the first', () => {
    const next = applyOverrides(config, { output: ['out/b.csv', 'out/b.geojson', 'out/b.gpkg'] });
    expect([next.output, ...next.moreOutputs].map((o) => [o.path, o.format])).toEqual([
      [path.resolve('out/b.csv'), 'csv'],
      [path.resolve('out/b.geojson'), 'geojson'],
      [path.resolve('out/b.gpkg'), 'gpkg'],
    ]);
    expect(next.errors.path).toBe(path.resolve('out/b.errors.csv'));
    // One -o replaces a list the job file gives.
    const listed = parseJobFile(
      'job: elevation\ninput: in.csv\noutputs: [a.csv, a.ndjson]\n',
      '/jobs/elev.yaml',
      {},
    );
    const one = applyOverrides(listed, { output: 'x.geojson' });
    expect([one.output.path, one.moreOutputs]).toEqual([path.resolve('x.geojson'), []]);
    // --format applies to each path without extension, and must agree with the others.
    const formatted = applyOverrides(config, { output: ['plain', 'b.ndjson'], format: 'ndjson' });
    expect([formatted.output.format, formatted.moreOutputs[0]?.format]).toEqual(['ndjson', 'ndjson']);
    expect(
      thrown(() => applyOverrides(config, { output: ['plain', 'b.csv'], format: 'ndjson' })).context,
    ).toMatchObject({ field: 'format', expected: 'csv', received: 'ndjson' });
  });

  it('gives runs of one job to outputs of one base name error reports of their own, by -o or the job file', () => {
    const reportOf = (job: JobConfig, output: string) => applyOverrides(job, { output }).errors.path;
    const outputs = ['out/g.csv', 'out/g.geojson', 'out/g.gpkg', 'out/g.ndjson', 'out/g.tsv', 'out/g.CSV'];
    // A CSV report: only an output whose extension is the report's own drops it.
    expect(outputs.map((output) => path.relative('', reportOf(config, output)))).toEqual([
      'out/g.errors.csv',
      'out/g.geojson.errors.csv',
      'out/g.gpkg.errors.csv',
      'out/g.ndjson.errors.csv',
      'out/g.tsv.errors.csv',
      'out/g.CSV.errors.csv',
    ]);
    // A report the job file names (its format kept) gives way to one beside each new output.
    const named = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: out.csv\nerrors: ../out/custom.jsonl\n',
      '/jobs/elev.yaml',
      {},
    );
    expect(outputs.map((output) => path.relative('', reportOf(named, output)))).toEqual([
      'out/g.csv.errors.ndjson',
      'out/g.geojson.errors.ndjson',
      'out/g.gpkg.errors.ndjson',
      'out/g.errors.ndjson',
      'out/g.tsv.errors.ndjson',
      'out/g.CSV.errors.ndjson',
    ]);
    // The job file's own default follows the same rule as -o.
    for (const output of outputs) {
      const own = parseJobFile(`job: elevation\ninput: in.csv\noutput: ${output}\n`, '/jobs/elev.yaml', {});
      expect(own.errors.path).toBe(path.join('/jobs', path.relative('', reportOf(config, output))));
    }
  });

  it('still refuses an output named as the default error report of the first output', () => {
    const next = applyOverrides(config, { output: ['out/g.geojson', 'out/g.geojson.errors.csv'] });
    const error = thrown(() => checkJobFiles(next));
    expect(error.code).toBe('USAGE');
    const report = path.resolve('out/g.geojson.errors.csv');
    expect(error.message).toBe(`The error report ${report} must be a file of its own: it is also an output`);
    expect(error.context).toMatchObject({ file: report, received: "an output's path" });
  });

  it('refuses standard output among several outputs, and a GeoPackage to standard output, before anything runs', () => {
    const among = thrown(() => applyOverrides(config, { output: ['-', 'b.csv'] }));
    expect(among.code).toBe('USAGE');
    expect(among.message).toBe('Standard output (`-`) can only be the one output of a run');
    expect(among.context).toMatchObject({ field: 'output', received: `-, ${path.resolve('b.csv')}` });
    const gpkg = thrown(() => applyOverrides(config, { output: '-', format: 'gpkg' }));
    expect(gpkg.code).toBe('USAGE');
    expect(gpkg.message).toBe('A GeoPackage cannot be written to standard output');
    expect(gpkg.context).toMatchObject({ field: 'format', received: 'gpkg' });
  });

  it("turns the run report off, moves it, or keeps the job file's; a report path must be an HTML file", () => {
    expect(config.runReport).toBeUndefined();
    expect(applyOverrides(config, { report: false }).runReport).toBe(false);
    expect(applyOverrides(config, { report: 'r/run.html' }).runReport).toBe(path.resolve('r/run.html'));
    const off = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: o.csv\nreport: false\n',
      '/jobs/e.yaml',
      {},
    );
    expect(applyOverrides(off, {}).runReport).toBe(false);
    expect(applyOverrides(off, { report: true }).runReport).toBeUndefined();
    const error = thrown(() => applyOverrides(config, { report: 'run.txt' }));
    expect(error.code).toBe('USAGE');
    expect(error.context).toMatchObject({ field: 'report', received: 'run.txt' });
  });

  it("gives the same outputs when applied again (the emulator's service is applied after the flags)", () => {
    const once = applyOverrides(config, { output: 'x.ndjson', errors: 'e.ndjson', report: false });
    const twice = applyOverrides(once, { service: { endpoints: {}, credentials: {} } });
    expect([twice.output, twice.moreOutputs, twice.errors, twice.runReport]).toEqual([
      once.output,
      once.moreOutputs,
      once.errors,
      once.runReport,
    ]);
    expect(twice.output.format).toBe('ndjson');
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
    const workbook = thrown(() => applyOverrides(config, { errors: 'x.xlsx' }));
    expect(workbook.message).toContain('-e/--errors: geobatch does not write .xlsx files');
    expect(workbook.context.hint).toContain('write .csv, which Excel opens by double-click');
    const error = thrown(() => applyOverrides(config, { errors: 'x.parquet' }));
    expect(error.message).toContain('-e/--errors: geobatch does not write .parquet files');
    expect(error.context).toMatchObject({ field: 'errors' });
    // The report's format is the job file's: --format, which is the outputs', does not apply.
    expect(error.context.hint).toBe(
      "Use one of .csv .txt .ndjson .jsonl, or a path without extension (written as csv, the job file's error report format; --format does not apply to it).",
    );
  });

  it("holds the job file's own paths to the same rule: an extension alone must be one geobatch writes", () => {
    let error: unknown;
    try {
      parseJobFile('job: elevation\ninput: in.csv\noutputs: [out.csv, out.xlsx]\n', '/jobs/elev.yaml', {});
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: '/jobs/elev.yaml',
      path: 'outputs[1]',
      received: 'out.xlsx',
    });
    const gpkg = parseJobFile('job: elevation\ninput: in.csv\noutput: out.gpkg\n', '/jobs/elev.yaml', {});
    expect(applyOverrides(gpkg, {}).output.format).toBe('gpkg');
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
    expect(() =>
      parseJobFile(
        'job: elevation\ninput: in.csv\noutput: out.csv\nerrors: failed.xlsx\n',
        '/jobs/e.yaml',
        {},
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        context: expect.objectContaining({ path: 'errors' }),
      }),
    );
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

describe('applyOverrides: a path that ends with / and so names a directory', () => {
  const cases: readonly (readonly [Parameters<typeof applyOverrides>[1], string])[] = [
    [
      { output: 'o35/' },
      '-o/--output: o35/ ends with / and so names a directory: name a file in it, e.g. o35/result.csv',
    ],
    [
      { output: ['a.csv', 'o35/'] },
      '-o/--output: o35/ ends with / and so names a directory: name a file in it, e.g. o35/result.csv',
    ],
    [
      { output: 'x.csv', errors: 'errdir/' },
      '-e/--errors: errdir/ ends with / and so names a directory: name a file in it, e.g. errdir/errors.csv',
    ],
    [
      { input: 'in/range.csv/' },
      '-i/--input: in/range.csv/ ends with / and so names a directory: name the file without the /, e.g. in/range.csv',
    ],
    [
      { output: 'sub/..' },
      '-o/--output: sub/.. ends with /.. and so names a directory: name a file in it, e.g. result.csv',
    ],
  ];
  for (const [overrides, message] of cases) {
    it(`refuses ${JSON.stringify(overrides)} (USAGE), naming the flag, the path and what to name`, () => {
      let thrown: unknown;
      try {
        applyOverrides(config, overrides);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).code).toBe('USAGE');
      expect((thrown as UsageError).message).toBe(message);
      const given = message.split(' ')[1];
      expect((thrown as UsageError).context).toMatchObject({ file: given, received: given });
    });
  }
});
