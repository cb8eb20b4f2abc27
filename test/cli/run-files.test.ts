/**
 * `geobatch run` and the files it writes, through the real command line: targets that cannot be
 * written, a full disk, a file-size limit mid-run, formats named by extensions, and standard output
 * closed by its reader.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { CORE_TABLES } from '../../src/output/_gpkg-schema.js';
import { cli, emulatorEnv, ROOT, until } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cli-files-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  emulator.setFaults({});
  emulator.resetStats();
});

let jobs = 0;

/** A directory with the sample places (2006 rows, 3 planted failures) and an elevation job over them. */
function placesJob(extra = ''): { job: string; out: string } {
  const here = join(dir, `job${++jobs}`);
  mkdirSync(join(here, 'out'), { recursive: true });
  writeFileSync(join(here, 'in.csv'), readFileSync(join(ROOT, 'samples', 'places.csv')));
  const job = join(here, 'places.yaml');
  writeFileSync(job, `job: elevation\ninput: in.csv\noutput: out/places.csv\n${extra}`);
  return { job, out: join(here, 'out') };
}

const files = (path: string) => readdirSync(path).sort();

describe('geobatch run: targets that cannot be written', () => {
  it('refuses an output that is an existing directory before any request, with exit 2 naming it', async () => {
    const { job, out } = placesJob();
    const run = cli(['run', job, '--emulator', '--no-progress', '-o', out], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(`geobatch: The output ${out} is an existing directory, not a file`);
    expect(run.err()).toContain(`hint: Name a file, e.g. ${join(out, 'result.csv')}.`);
    expect(files(out)).toEqual([]);
    expect(existsSync(`${out}.lock`) || existsSync(`${out}.partial`)).toBe(false);
  });

  it('refuses a GeoPackage output whose file holds other layers with exit 2, in a dry run too, leaving it as it was', async () => {
    const { job, out } = placesJob();
    const target = join(out, 'project.gpkg');
    const db = new DatabaseSync(target);
    db.exec(CORE_TABLES);
    for (const layer of ['parcels', 'roads']) {
      db.exec(`CREATE TABLE ${layer} (fid INTEGER PRIMARY KEY, geom GEOMETRY)`);
      db.exec(
        `INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('${layer}', 'features', 4326)`,
      );
    }
    db.close();
    const before = readFileSync(target);
    for (const flags of [[], ['--dry-run']]) {
      const run = cli(['run', job, '--no-progress', '-o', target, ...flags], emulatorEnv(emulator));
      expect(await run.exited, run.err()).toBe(2);
      expect(run.err()).toContain(
        `geobatch: The output ${target} is a GeoPackage holding 2 other layers (parcels, roads): writing it would replace the whole file and lose them`,
      );
      expect(run.err()).toContain('hint: geobatch writes a whole GeoPackage, not a layer into one:');
    }
    expect(emulator.stats().total).toBe(0);
    expect(readFileSync(target).equals(before)).toBe(true);
    expect(files(out)).toEqual(['project.gpkg']);
  });

  it('refuses an output under a regular file with exit 2, naming the file in the way, before any request', async () => {
    const { job, out } = placesJob();
    writeFileSync(join(out, 'afile'), 'not a directory\n');
    const run = cli(['run', job, '--no-progress', '-o', 'afile/o.csv'], emulatorEnv(emulator), { cwd: out });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      `geobatch: The output ${join(out, 'afile', 'o.csv')} cannot be written: ${join(out, 'afile')} is a file, not a directory\n`,
    );
    expect(run.err()).toContain(
      `hint: Name the output (-o, or the job file's output:) somewhere not under the file ${join(out, 'afile')}, or move that file away.`,
    );
    expect(run.err()).not.toContain('EEXIST');
    expect(emulator.stats().total).toBe(0);
  });

  it('refuses an error report under a regular file with exit 2, naming -e', async () => {
    const { job, out } = placesJob();
    writeFileSync(join(out, 'afile'), 'not a directory\n');
    const report = join(out, 'afile', 'deeper', 'e.csv');
    const run = cli(['run', job, '--no-progress', '-e', report], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      `geobatch: The error report ${report} cannot be written: ${join(out, 'afile')} is a file, not a directory`,
    );
    expect(run.err()).toContain(
      "hint: Name the error report (-e, or the job file's errors:) somewhere not under",
    );
    expect(emulator.stats().total).toBe(0);
  });

  it.runIf(process.platform === 'linux')(
    'refuses an output in a directory that takes no new file (/proc) with exit 2 and a hint',
    async () => {
      const { job } = placesJob();
      const run = cli(['run', job, '--no-progress', '-o', '/proc/o.csv'], emulatorEnv(emulator));
      expect(await run.exited).toBe(2);
      // As root the lock finds /proc refuses new files; as anyone else the directory check does.
      expect(run.err()).toMatch(
        /geobatch: The output \/proc\/o\.csv cannot be written: (no file can be created in \/proc \(ENOENT\)|\/proc is not writable \(EACCES\))\n/,
      );
      expect(run.err()).toContain(
        "hint: Name the output (-o, or the job file's output:) in a directory you can write to",
      );
      expect(emulator.stats().total).toBe(0);
    },
  );

  it('ends a disk-full run with exit 1, the file and the cause, the summary, and no lock or partial file', async () => {
    const { job, out } = placesJob();
    symlinkSync('/dev/full', join(out, 'places.csv.partial')); // Linux: every write fails with ENOSPC
    const run = cli(['run', job, '--no-progress'], emulatorEnv(emulator));
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain(`IO_ERROR: Writing ${join(out, 'places.csv.partial')} failed: ENOSPC`);
    expect(run.err()).toMatch(new RegExp(`${job}: STOPPED after \\d+ rows`));
    expect(run.err()).toContain('summary  ');
    expect(files(out)).toEqual(['places.csv.report.html', 'places.csv.summary.json']);
    const again = cli(['run', job, '--no-progress'], emulatorEnv(emulator));
    expect(await again.exited, again.err()).toBe(3);
  });

  it('leaves no empty cache file behind when the new cache cannot be written (file-size limit)', async () => {
    const { job, out } = placesJob();
    const cache = join(out, 'new.cache.sqlite');
    // No byte can be written: the cache's first page fails as on a full disk; the run goes on
    // without it (its own output then fails too, which is not what this test is about).
    const limited = cli(['run', job, '--no-progress', '--cache', cache], emulatorEnv(emulator), {
      fileSizeBlocks: 0,
    });
    await limited.exited;
    expect(limited.err()).toContain('The request cache cannot be written');
    expect(files(out).filter((name) => name.startsWith('new.cache'))).toEqual([]);
  });

  it('keeps the checkpoint when a write fails mid-run (file-size limit), and resumes to the same output', async () => {
    const reference = placesJob('options:\n  batchSize: 20\n');
    expect(await cli(['run', reference.job, '--no-progress'], emulatorEnv(emulator)).exited).toBe(3);
    emulator.setFaults({ latency: { fixedMs: 10 } });
    const { job, out } = placesJob('options:\n  batchSize: 20\nrun:\n  checkpointSeconds: 0.02\n');
    const args = ['run', job, '--no-progress', '--concurrency', '1'];
    // 64 blocks: 32 or 64 KiB by the shell's block size, either way less than the 111 KB output.
    const limited = cli(args, emulatorEnv(emulator), { fileSizeBlocks: 64 });
    expect(await limited.exited).toBe(1);
    expect(limited.err()).toContain(`IO_ERROR: Writing ${join(out, 'places.csv.partial')} failed: EFBIG`);
    expect(limited.err()).toContain('checkpoint kept');
    expect(files(out)).toEqual([
      'places.csv.checkpoint.json',
      'places.csv.partial',
      'places.csv.summary.json',
      'places.errors.csv.partial',
    ]);
    const resumed = cli([...args, '--resume'], emulatorEnv(emulator));
    expect(await resumed.exited, resumed.err()).toBe(3);
    for (const name of ['places.csv', 'places.errors.csv']) {
      expect(readFileSync(join(out, name), 'utf8')).toBe(readFileSync(join(reference.out, name), 'utf8'));
    }
  });
});

/** Every file and directory under `path`, as paths relative to it. */
const tree = (path: string) => (readdirSync(path, { recursive: true }) as string[]).sort();

describe('geobatch run, status and cache: a path that ends with / and so names a directory', () => {
  const dirWords = (given: string, file: string) =>
    `${given} ends with / and so names a directory: name a file in it, e.g. ${given}${file}\n`;
  const cases: readonly (readonly [string, readonly string[], NodeJS.ProcessEnv, string])[] = [
    ['-o', ['-o', 'o35/'], {}, `-o/--output: ${dirWords('o35/', 'result.csv')}`],
    ['a second -o', ['-o', 'a.csv', '-o', 'o35/'], {}, `-o/--output: ${dirWords('o35/', 'result.csv')}`],
    ['-e', ['-e', 'errdir/'], {}, `-e/--errors: ${dirWords('errdir/', 'errors.csv')}`],
    ['--cache', ['--cache', 'cachedir/'], {}, `--cache: ${dirWords('cachedir/', 'cache.sqlite')}`],
    [
      'GEOBATCH_CACHE',
      [],
      { GEOBATCH_CACHE: 'envdir/' },
      `GEOBATCH_CACHE: ${dirWords('envdir/', 'cache.sqlite')}`,
    ],
    [
      '--cache with an -o in the same directory',
      ['--cache', 'o33/', '-o', 'o33/a.csv'],
      {},
      `--cache: ${dirWords('o33/', 'cache.sqlite')}`,
    ],
    [
      '-i',
      ['-i', 'in.csv/'],
      {},
      '-i/--input: in.csv/ ends with / and so names a directory: name the file without the /, e.g. in.csv\n',
    ],
    ["the job file's output", [], {}, `places.yaml: output: ${dirWords('../o39/', 'result.csv')}`],
  ];

  it.each(cases)(
    'refuses %s with exit 2 and the flag, the path and what to name, writing and sending nothing',
    async (_what, args, env, message) => {
      const { job, out } = placesJob();
      const cwd = join(out, '..');
      if (message.startsWith('places.yaml'))
        writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: ../o39/\n');
      // The job's directory and the one above it, where ../o39 would be.
      const before = tree(join(cwd, '..'));
      const run = cli(
        ['run', 'places.yaml', '--no-progress', ...args],
        { ...emulatorEnv(emulator), ...env },
        { cwd },
      );
      expect(await run.exited, run.err()).toBe(2);
      expect(run.err()).toBe(`geobatch: ${message}`);
      expect(tree(join(cwd, '..'))).toEqual(before);
      expect(emulator.stats().total).toBe(0);
    },
  );

  it('refuses a --cache without a / that names the directory an -o goes in, leaving no cache file', async () => {
    const { out } = placesJob();
    const cwd = join(out, '..');
    const before = tree(cwd);
    const run = cli(
      ['run', 'places.yaml', '--no-progress', '--cache', 'o33', '-o', 'o33/a.csv'],
      emulatorEnv(emulator),
      { cwd },
    );
    expect(await run.exited, run.err()).toBe(2);
    expect(run.err()).toMatch(
      /^geobatch: The request cache \/.*\/o33 is the directory an output, \/.*\/o33\/a\.csv, goes in\nhint: give --cache/,
    );
    expect(tree(cwd)).toEqual(before);
    expect(emulator.stats().total).toBe(0);
  });

  it('refuses `status -o dir/` and `cache stats --cache dir/` with exit 2, creating nothing', async () => {
    const { out } = placesJob();
    const cwd = join(out, '..');
    const before = tree(cwd);
    const status = cli(['status', 'places.yaml', '-o', 'o35/'], {}, { cwd });
    expect(await status.exited).toBe(2);
    expect(status.err()).toBe(`geobatch: -o/--output: ${dirWords('o35/', 'result.csv')}`);
    const stats = cli(['cache', 'stats', '--cache', 'cdir/'], {}, { cwd });
    expect(await stats.exited).toBe(2);
    expect(stats.err()).toBe(`geobatch: --cache: ${dirWords('cdir/', 'cache.sqlite')}`);
    const init = cli(['init', 'in.csv', '--kind', 'elevation', '-o', 'drafts/'], {}, { cwd });
    expect(await init.exited).toBe(2);
    expect(init.err()).toContain('geobatch: -o/--output: drafts/ is a directory, not a job file\n');
    expect(tree(cwd)).toEqual(before);
  });
});

describe('geobatch run: formats named by extensions', () => {
  it('refuses an output extension geobatch does not write, with exit 2 naming the flag, before anything is sent', async () => {
    const { job, out } = placesJob();
    const run = cli(['run', job, '--no-progress', '-o', join(out, 'x.xlsx')], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('-o/--output: geobatch does not write .xlsx files');
    expect(run.err()).toContain('known extensions: .csv .tsv .txt .ndjson .jsonl .geojson .json .gpkg');
    expect(emulator.stats().total).toBe(0);
    expect(files(out)).toEqual([]);
  });

  it("writes the report named with -e in the format of its extension, not the job file's", async () => {
    const { job, out } = placesJob('errors:\n  format: ndjson\n');
    const report = join(out, 'failed.csv');
    const run = cli(['run', job, '--no-progress', '-e', report], emulatorEnv(emulator));
    expect(await run.exited).toBe(3);
    expect(readFileSync(report, 'utf8').split('\n')[0]).toMatch(/^geobatch_row,geobatch_line,/);
  });
});

describe('geobatch run: standard output', () => {
  it.each([
    ['no report unless one is named', [], ['in.csv', 'out', 'places.yaml']],
    ['the named report, complete', ['-e', 'failed.csv'], ['failed.csv', 'in.csv', 'out', 'places.yaml']],
  ])(
    'ends with exit 0 and leaves %s when the reader closes standard output (| head)',
    async (_what, flags, left) => {
      const { job, out } = placesJob();
      const cwd = join(out, '..');
      // Four times the places: more than a pipe and geobatch's buffers hold, so the run cannot finish
      // while nobody reads.
      const places = readFileSync(join(cwd, 'in.csv'), 'utf8');
      const [header, ...body] = places.trimEnd().split('\n');
      writeFileSync(join(cwd, 'in.csv'), `${[header, ...body, ...body, ...body, ...body].join('\n')}\n`);
      const run = cli(['run', job, '--no-progress', '-o', '-', ...flags], emulatorEnv(emulator), { cwd });
      run.child.stdout?.pause();
      await until(() => emulator.stats().total > 0, 20_000, 'the run to send requests');
      run.child.stdout?.destroy(); // as `head` does once it has its lines
      expect(await run.exited).toBe(0);
      expect(run.err()).toMatch(new RegExp(`${job}: output closed by its reader after \\d+ rows`));
      expect(run.err()).not.toMatch(/Error|EPIPE|STOPPED/);
      // No partial file anywhere, and no report in the working directory unless named.
      expect(files(cwd)).toEqual(left);
      expect(files(out)).toEqual([]);
    },
  );
});

describe('geobatch run: an input cut short', () => {
  it('writes the rows before the cut and ends with exit 4, not 3: a night with a few failed rows is not a file cut in half', async () => {
    const here = join(dir, `job${++jobs}`);
    mkdirSync(join(here, 'out'), { recursive: true });
    // The sample's first 40 features, then the file ends inside the 41st, as a download cut short.
    const lines = readFileSync(join(ROOT, 'samples', 'places.geojson'), 'utf8').split('\n');
    writeFileSync(join(here, 'in.geojson'), `${lines.slice(0, 41).join('\n')}\n${lines[41]?.slice(0, 30)}`);
    const job = join(here, 'cut.yaml');
    writeFileSync(job, 'job: boundaries\ninput: in.geojson\noutput: out/cut.csv\noptions:\n  levels: [4]\n');
    const run = cli(['run', job, '--emulator', '--no-progress'], emulatorEnv(emulator));
    expect(await run.exited).toBe(4);
    expect(run.err()).toMatch(
      /INPUT CUT SHORT, done in .* with the rows before the cut: 41 rows, 40 ok, 1 failed/,
    );
    const summary = JSON.parse(readFileSync(join(here, 'out', 'cut.csv.summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 4,
      input: { truncated: true },
      rows: { read: 41, ok: 40, failed: 1, failedByCode: { INPUT_MALFORMED: 1 } },
    });
    // The header, the 40 features read whole and the row the cut made, with its error.
    const written = readFileSync(join(here, 'out', 'cut.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(written).toHaveLength(42);
    expect(written.at(-1)).toContain('INPUT_MALFORMED');
  });

  it('ends a CSV file cut inside a quoted field of its last row with exit 4 too', async () => {
    const here = join(dir, `job${++jobs}`);
    mkdirSync(here, { recursive: true });
    writeFileSync(join(here, 'in.csv'), 'id,lat,lon\n1,50.6583,10.7442\n"2 Erfurt,50.97');
    const job = join(here, 'cut.yaml');
    writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: out/cut.csv\n');
    const run = cli(['run', job, '--emulator', '--no-progress'], emulatorEnv(emulator));
    expect(await run.exited).toBe(4);
    expect(run.err()).toContain(
      '  input cut short: it ends inside row 2, which is not whole (the file cut short)',
    );
    const summary = JSON.parse(readFileSync(join(here, 'out', 'cut.csv.summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      exitCode: 4,
      input: { truncated: true },
      rows: { read: 2, ok: 1, failed: 1 },
    });
  });
});
