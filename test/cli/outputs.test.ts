/**
 * One command, every output: `geobatch run jobs/boundaries.yaml --emulator -o out/b.csv
 * -o out/b.geojson -o out/b.gpkg` writes the three files, the error report, the summary and the
 * HTML run report from one pass, and its closing lines name each; `--no-report` leaves the page
 * out, and standard output gets none.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpkg, rows } from '../output/_gpkg-read.js';
import { cli, ROOT } from './_cli.js';

const JOB = join(ROOT, 'jobs', 'boundaries.yaml');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cli-outputs-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A working directory of its own for one command. */
function workdir(name: string): string {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  return cwd;
}

describe('geobatch run with several outputs', () => {
  it('writes CSV, GeoJSON and GeoPackage, the error report, the summary and the run report from one command', async () => {
    const cwd = workdir('all');
    const outputs = ['-o', 'out/b.csv', '-o', 'out/b.geojson', '-o', 'out/b.gpkg'];
    const run = cli(['run', JOB, '--emulator', '--no-progress', ...outputs], {}, { cwd });
    expect(await run.exited, run.err()).toBe(3);
    const out = join(cwd, 'out');
    expect(readdirSync(out).sort()).toEqual([
      'b.csv',
      'b.csv.errors.ndjson',
      'b.csv.report.html',
      'b.csv.summary.json',
      'b.geojson',
      'b.gpkg',
    ]);
    const closing = run.err().split('\n');
    for (const line of [
      '  output   out/b.csv',
      '  output   out/b.geojson',
      '  output   out/b.gpkg',
      '  errors   out/b.csv.errors.ndjson (3 rows)',
      '  summary  out/b.csv.summary.json',
      '  report   out/b.csv.report.html',
    ])
      expect(closing).toContain(line);
    const summary = JSON.parse(readFileSync(join(out, 'b.csv.summary.json'), 'utf8'));
    expect(summary.outputs.map((o: { format: string }) => o.format)).toEqual(['csv', 'geojson', 'gpkg']);
    const records = summary.rows.written;
    expect(summary.outputs.map((o: { records: number }) => o.records)).toEqual([records, records, records]);
    const csv = readFileSync(join(out, 'b.csv'), 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(records + 1);
    const geojson = JSON.parse(readFileSync(join(out, 'b.geojson'), 'utf8'));
    expect(geojson.features).toHaveLength(records);
    const db = openGpkg(join(out, 'b.gpkg'));
    try {
      expect(rows(db, 'SELECT count(*) AS n FROM "b"')).toEqual([{ n: records }]);
    } finally {
      db.close();
    }
    expect(readFileSync(join(out, 'b.csv.report.html'), 'utf8')).toContain('<title>geobatch boundaries:');
  });

  it('writes no run report with --no-report, and names none', async () => {
    const cwd = workdir('off');
    const run = cli(['run', JOB, '--emulator', '--no-progress', '--no-report', '-o', 'b.csv'], {}, { cwd });
    expect(await run.exited, run.err()).toBe(3);
    expect(readdirSync(cwd).sort()).toEqual(['b.csv', 'b.csv.errors.ndjson', 'b.csv.summary.json']);
    expect(run.err()).not.toContain('report ');
  });

  it('writes no run report for standard output, and refuses a GeoPackage there with exit 2', async () => {
    const cwd = workdir('piped');
    const args = [
      'run',
      JOB,
      '--emulator',
      '--no-progress',
      '-e',
      'failed.ndjson',
      '-o',
      '-',
      '-f',
      'ndjson',
    ];
    const run = cli(args, {}, { cwd });
    expect(await run.exited, run.err()).toBe(3);
    expect(run.out().split('\n')[0]).toContain('"geobatch_status"');
    expect(readdirSync(cwd)).toEqual(['failed.ndjson']);
    const gpkg = cli(['run', JOB, '--emulator', '--no-progress', '-o', '-', '-f', 'gpkg'], {}, { cwd });
    expect(await gpkg.exited).toBe(2);
    expect(gpkg.err()).toContain('geobatch: A GeoPackage cannot be written to standard output');
    expect(gpkg.err()).toContain('hint: Give an output file, e.g. -o out.gpkg.');
    expect(readdirSync(cwd)).toEqual(['failed.ndjson']);
  });

  it('validate shows every output and where the run report goes', async () => {
    const cwd = workdir('validate');
    const job = join(cwd, 'b.yaml');
    writeFileSync(job, 'job: boundaries\ninput: in.geojson\noutputs: [out/b.csv, out/b.gpkg]\n');
    const shown = cli(['validate', job]);
    expect(await shown.exited, shown.err()).toBe(0);
    expect(shown.out()).toContain(`  output       ${join(cwd, 'out', 'b.csv')} (csv)\n`);
    expect(shown.out()).toContain(`  output       ${join(cwd, 'out', 'b.gpkg')} (gpkg)\n`);
    expect(shown.out()).toContain(`  report       ${join(cwd, 'out', 'b.csv')}.report.html\n`);
    writeFileSync(job, 'job: boundaries\ninput: in.geojson\noutput: b.csv\nreport: false\n');
    const off = cli(['validate', job]);
    expect(await off.exited, off.err()).toBe(0);
    expect(off.out()).toContain('  report       none\n');
  });
});
