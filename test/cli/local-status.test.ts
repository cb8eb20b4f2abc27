/**
 * `geobatch status <job.yaml>`: where a plain run stands, read from the files beside its output,
 * through the real command line against an emulator started here: never run, running (slowed with
 * --rate), killed with SIGKILL (a checkpoint and a stale lock left), finished, and the errors.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatus } from '../../src/cli/_local-status.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { type CliRun, cli, committedRows, emulatorEnv, until } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;
/** A queue nothing listens on: a status that opened it would fail. */
const UNREACHABLE_QUEUE = 'postgres://geobatch@127.0.0.1:47919/geobatch';

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-status-'));
  // Distinct points over Germany: one reverse-geocoding request per row.
  const lines = ['id,lon,lat'];
  for (let i = 0; i < 400; i++)
    lines.push(`${i},${(6 + (i % 20) * 0.2).toFixed(5)},${(47.5 + Math.floor(i / 20) * 0.2).toFixed(5)}`);
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'elev.csv'), 'id,lat,lon\n1,50.6583,10.7442\n2,49.0069,8.4037\n3,148.137,11.575\n');
  writeFileSync(join(dir, 'elev.yaml'), 'job: elevation\ninput: elev.csv\noutput: out/elev.csv\n');
  writeFileSync(
    join(dir, 'slow.yaml'),
    'job: reverse-geocode\ninput: points.csv\noutput: slow/points.csv\nrun:\n  checkpointSeconds: 0.3\n',
  );
  writeFileSync(join(dir, 'bad.yaml'), 'job: no-such-kind\ninput: elev.csv\noutput: out/bad.csv\n');
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `geobatch status ...` in the test directory, with a queue set that must not be opened. */
async function status(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  const run = cli(
    ['status', ...args],
    { ...emulatorEnv(emulator), GEOBATCH_QUEUE: UNREACHABLE_QUEUE },
    { cwd: dir },
  );
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

describe('geobatch status <job>: a job never run', () => {
  it('says so and exits 0, opening no queue though GEOBATCH_QUEUE is set', async () => {
    const { code, out, err } = await status(['elev.yaml', '-o', 'never/x.csv']);
    expect(err).toBe('');
    expect(out).toBe('elev.yaml: never run: no lock, checkpoint or summary beside never/x.csv\n');
    expect(code).toBe(0);
  });
});

describe('geobatch status <job>: a finished run', () => {
  it('gives how it ended, its exit code, rows, requests and files, for the output -o named', async () => {
    const run = cli(['run', 'elev.yaml', '-o', 'other/elev.csv', '--no-progress'], emulatorEnv(emulator), {
      cwd: dir,
    });
    expect(await run.exited).toBe(3);
    const { code, out } = await status(['elev.yaml', '-o', 'other/elev.csv']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^elev\.yaml: finished: complete_with_failures \(exit 3\), ended \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+s ago\)$/,
    );
    expect(lines.slice(1)).toEqual([
      '  rows: 3 read, 2 ok, 1 failed; 1 request',
      '  output   other/elev.csv',
      '  errors   other/elev.errors.csv (1 row)',
      '  summary  other/elev.csv.summary.json',
      '  report   other/elev.csv.report.html',
    ]);
    // The job file's own output was never written: -o is what names the run.
    expect((await status(['elev.yaml'])).out).toMatch(/^elev\.yaml: never run: .* beside out\/elev\.csv\n$/);
  });

  it('--json gives the same facts as one object', async () => {
    const { code, out } = await status([
      'elev.yaml',
      '-o',
      'other/elev.csv',
      '-o',
      'other/second.ndjson',
      '--json',
    ]);
    expect(code).toBe(0);
    const document = JSON.parse(out);
    expect(document).toMatchObject({
      job: 'elev.yaml',
      state: 'finished',
      output: join(dir, 'other/elev.csv'),
      lock: null,
      progress: null,
      resume: null,
      stop: null,
      partial: null,
      summary: {
        path: join(dir, 'other/elev.csv.summary.json'),
        ended: 'complete_with_failures',
        exitCode: 3,
        error: null,
        rows: { read: 3, written: 3, ok: 2, failed: 1 },
        requests: 1,
        outputs: [join(dir, 'other/elev.csv')],
        errors: join(dir, 'other/elev.errors.csv'),
        report: join(dir, 'other/elev.csv.report.html'),
      },
    });
    expect(Object.keys(document)).toEqual([
      'job',
      'state',
      'output',
      'lock',
      'progress',
      'resume',
      'stop',
      'summary',
      'partial',
    ]);
    expect(document.summary.endedSecondsAgo).toBeGreaterThanOrEqual(0);
    expect(out).not.toContain(emulator.credentials.apiKey);
  });

  it('names no run report that is not there (a run killed after its summary, before its report)', async () => {
    // As a kill -9 the moment the summary was written leaves it: the summary names the report.
    rmSync(join(dir, 'other/elev.csv.report.html'));
    // And an output and an error report moved away since: named, and said not to be there.
    rmSync(join(dir, 'other/elev.csv'));
    rmSync(join(dir, 'other/elev.errors.csv'));
    const { code, out } = await status(['elev.yaml', '-o', 'other/elev.csv']);
    expect(code).toBe(0);
    expect(out.trimEnd().split('\n').slice(-4)).toEqual([
      '  output   other/elev.csv (not there now)',
      '  errors   other/elev.errors.csv (1 row) (not there now)',
      '  summary  other/elev.csv.summary.json',
      '  report   other/elev.csv.report.html (not there)',
    ]);
    const document = JSON.parse((await status(['elev.yaml', '-o', 'other/elev.csv', '--json'])).out);
    expect(document.summary).toMatchObject({ path: join(dir, 'other/elev.csv.summary.json'), report: null });
  });
});

describe('geobatch status <job>: a run running, then killed with SIGKILL', () => {
  let run: CliRun;
  const checkpoint = () => join(dir, 'slow/points.csv.checkpoint.json');

  it('while it runs: running, with its pid, start, host and progress from the last checkpoint', async () => {
    run = cli(['run', 'slow.yaml', '--rate', '25', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    await until(() => committedRows(checkpoint()) > 0, 20_000, 'a first checkpoint');
    const { code, out } = await status(['slow.yaml']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^slow\\.yaml: running \\(pid ${run.child.pid}, started \\d{4}-[\\d-]+T[\\d:.]+Z, on host ${hostname()}\\)$`,
      ),
    );
    expect(lines[1]).toMatch(
      /^ {2}progress: \d+ rows? committed \(\d+ ok, \d+ failed\), \d+ requests? so far; last checkpoint \d+s ago \(.+Z\)$/,
    );
    expect(lines[2]).toBe(
      '  output   slow/points.csv (not finished: the rows so far are in slow/points.csv.partial)',
    );
    const json = JSON.parse((await status(['slow.yaml', '--json'])).out);
    expect(json.state).toBe('running');
    expect(json.lock).toMatchObject({ pid: run.child.pid, hostname: hostname(), live: true });
    expect(json.progress.committedRows).toBeGreaterThan(0);
    expect(json.progress.requests).toBeGreaterThanOrEqual(json.progress.committedRows);
  });

  it('once killed: stopped, with the stale lock, the progress and the --resume command', async () => {
    run.child.kill('SIGKILL');
    await run.exited;
    const { code, out } = await status(['slow.yaml']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^slow\\.yaml: stopped: killed or crashed \\(its lock names pid ${run.child.pid}, .*; that process is gone\\)$`,
      ),
    );
    expect(lines[1]).toMatch(/^ {2}progress: \d+ rows? committed/);
    expect(lines.slice(2)).toEqual([
      '  checkpoint kept: slow/points.csv.checkpoint.json; rerun with --resume to continue',
      '  to go on: geobatch run slow.yaml --rate 25 --resume',
      '  output   slow/points.csv (not finished: the rows so far are in slow/points.csv.partial)',
    ]);
    const json = JSON.parse((await status(['slow.yaml', '--json'])).out);
    expect(json).toMatchObject({
      state: 'stopped',
      lock: { pid: run.child.pid, live: false },
      resume: {
        checkpoint: checkpoint(),
        next: 'resume',
        command: 'geobatch run slow.yaml --rate 25 --resume',
      },
      stop: { crashed: true, error: null },
      partial: join(dir, 'slow/points.csv.partial'),
    });
    // The command it gives goes on from the checkpoint.
    const resumed = cli(['run', 'slow.yaml', '--resume', '--no-progress'], emulatorEnv(emulator), {
      cwd: dir,
    });
    // Points off the emulator's map fail as NO_MATCH: exit 3.
    expect(await resumed.exited).toBe(3);
    expect((await status(['slow.yaml'])).out).toMatch(
      /^slow\.yaml: finished: complete_with_failures \(exit 3\)/,
    );
  }, 30_000);
});

describe('geobatch status <job>: a checkpoint --resume alone would refuse', () => {
  // Its own job and input, so that changing them leaves the other tests' alone.
  const job = 'refused.yaml';
  const args = [job, '-o', 'refused/points.csv'];
  /** The status's lines and its checkpoint kept line. */
  async function judged(file = job) {
    const { code, out } = await status([file, '-o', 'refused/points.csv']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    return { kept: lines.find((line) => line.startsWith('  checkpoint kept: ')), lines };
  }
  async function json(file = job) {
    return JSON.parse((await status([file, '-o', 'refused/points.csv', '--json'])).out);
  }
  const goesOn = '  checkpoint kept: refused/points.csv.checkpoint.json; rerun with --resume to continue';
  const startOver = (why: string) =>
    `  checkpoint kept: refused/points.csv.checkpoint.json, but --resume cannot finish it (${why}): run with --resume --restart-if-changed to start over from the first row`;

  it('gives --resume --restart-if-changed, saying why, for a .partial gone or cut short, a job or input changed, a finished file removed', async () => {
    const path = (name: string) => join(dir, name);
    const partial = path('refused/points.csv.partial');
    const checkpoint = path('refused/points.csv.checkpoint.json');
    writeFileSync(path('refused.csv'), readFileSync(path('points.csv')));
    writeFileSync(
      path(job),
      'job: reverse-geocode\ninput: refused.csv\noutput: out/refused.csv\noptions:\n  prefix: rev_\nrun:\n  checkpointSeconds: 0.3\n',
    );
    const run = cli(['run', ...args, '--rate', '25', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    await until(() => committedRows(checkpoint) > 0, 20_000, 'a first checkpoint');
    run.child.kill('SIGKILL');
    await run.exited;
    expect((await judged()).kept).toBe(goesOn);
    const kept = readFileSync(partial);
    const journal = JSON.parse(readFileSync(checkpoint, 'utf8'));
    const bytes = journal.output.bytes as number;

    // Cut short: status says so, and the --resume it no longer gives is refused in those words.
    writeFileSync(partial, kept.subarray(0, 10));
    const cut = await judged();
    expect(cut.kept).toBe(
      startOver(`refused/points.csv.partial is shorter than the checkpoint says (10 bytes, not ${bytes})`),
    );
    expect(cut.lines).toContain(
      '  to go on: geobatch run refused.yaml -o refused/points.csv --rate 25 --resume --restart-if-changed',
    );
    const cutJson = await json();
    expect(cutJson.resume).toMatchObject({
      next: 'start-over',
      refused: `${partial} is shorter than the checkpoint says (10 bytes, not ${bytes})`,
      command: 'geobatch run refused.yaml -o refused/points.csv --rate 25 --resume --restart-if-changed',
    });
    const refused = cli(['run', ...args, '--resume', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    expect(await refused.exited).toBe(1);
    expect(refused.err()).toContain(`"code":"CHECKPOINT_MISMATCH"`);
    expect(refused.err()).toContain(`\ngeobatch: ${cutJson.resume.refused}\n`);

    // Gone.
    rmSync(partial);
    expect((await judged()).kept).toBe(
      startOver(`refused/points.csv.partial is gone, though the checkpoint holds ${bytes} bytes of it`),
    );
    writeFileSync(partial, kept);
    expect((await judged()).kept).toBe(goesOn);

    // The job file changed since (another option), then the input.
    writeFileSync(path('changed.yaml'), readFileSync(path(job), 'utf8').replace('rev_', 'r_'));
    const changed = await judged('changed.yaml');
    expect(changed.kept).toBe(
      startOver('it was made with other settings: the job differs (kind, mapping or options of a step)'),
    );
    expect((await json('changed.yaml')).resume.command).toBe(
      'geobatch run changed.yaml -o refused/points.csv --rate 25 --resume --restart-if-changed',
    );
    const touched = new Date(Date.now() + 60_000);
    utimesSync(path('refused.csv'), touched, touched);
    expect((await judged()).kept).toBe(startOver('it was made from other input, or the input changed'));

    // Killed as its finished files were being put in place (of the input as it is now), the output
    // then removed.
    const finishing = { outputs: [{ records: 1, unknownKeyRows: 0 }], reportRows: 0 };
    const input = { ...journal.input, mtimeMs: statSync(path('refused.csv')).mtimeMs };
    writeFileSync(checkpoint, JSON.stringify({ ...journal, input, finishing }));
    expect((await judged()).kept).toBe(goesOn);
    rmSync(partial);
    const removed = await judged();
    expect(removed.kept).toBe(
      startOver('refused/points.csv.partial is gone and refused/points.csv is not the file the run finished'),
    );
    expect(removed.lines.at(-1)).toBe('  output   refused/points.csv (not written)');
    expect(await json()).toMatchObject({ partial: null, resume: { next: 'start-over' } });
  }, 90_000);
});

describe('geobatch status <job>: a run that stopped keeping nothing', () => {
  it('says it stopped and that its output was not written, rather than name a file that is not there', async () => {
    // A byte that is no UTF-8 far into the file: INPUT_ENCODING stops the run once it has begun,
    // and keeps nothing (no run can go on in another encoding).
    const rows = Array.from(
      { length: 100_000 },
      (_, i) => `${i},50.${String(i % 1000).padStart(4, '0')},10.7442`,
    );
    writeFileSync(
      join(dir, 'latin1.csv'),
      Buffer.from(`id,lat,lon\n${rows.join('\n')}\n100000,50.1,10.7 Stra\xdfe\n`, 'latin1'),
    );
    writeFileSync(join(dir, 'latin1.yaml'), 'job: elevation\ninput: latin1.csv\noutput: latin1/elev.csv\n');
    const run = cli(['run', 'latin1.yaml', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    expect(await run.exited).toBe(1);
    const { code, out } = await status(['latin1.yaml']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^latin1\.yaml: stopped \(exit 1\), ended .*; nothing was kept to resume from$/);
    expect(lines[1]).toMatch(/^ {2}INPUT_ENCODING: /);
    expect(lines).toContain('  output   latin1/elev.csv (not written)');
  }, 30_000);
});

describe('geobatch status <job>: a run given another input with -i', () => {
  it('gives the --resume command with that -i, which goes on from the checkpoint', async () => {
    writeFileSync(join(dir, 'other-points.csv'), readFileSync(join(dir, 'points.csv')));
    const checkpoint = join(dir, 'moved/points.csv.checkpoint.json');
    const args = ['slow.yaml', '-i', 'other-points.csv', '-o', 'moved/points.csv'];
    const run = cli(['run', ...args, '--rate', '25', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    await until(() => committedRows(checkpoint) > 0, 20_000, 'a first checkpoint');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    const { out } = await status(['slow.yaml', '-o', 'moved/points.csv']);
    const command = 'geobatch run slow.yaml -i other-points.csv -o moved/points.csv --rate 25 --resume';
    expect(out).toContain(`\n  to go on: ${command}\n`);
    const resumed = cli([...command.split(' ').slice(1), '--no-progress'], emulatorEnv(emulator), {
      cwd: dir,
    });
    // Points off the emulator's map fail as NO_MATCH: exit 3, not CHECKPOINT_MISMATCH's 1.
    expect(await resumed.exited, resumed.err()).toBe(3);
  }, 30_000);
});

describe('geobatch status <job>: what the command line gave the run, which status is not given', () => {
  it.each([
    [
      'two outputs, status given the first',
      ['-o', 'two/points.csv', '-o', 'two/points.geojson'],
      'two/points.csv',
      '-o two/points.csv -o two/points.geojson',
    ],
    [
      '--limit',
      ['-o', 'lim/points.csv', '--limit', '300'],
      'lim/points.csv',
      '-o lim/points.csv --limit 300',
    ],
  ])(
    '%s: gives --resume with them, which goes on, not --restart-if-changed',
    async (_, flags, first, given) => {
      const checkpoint = join(dir, `${first}.checkpoint.json`);
      const run = cli(
        ['run', 'slow.yaml', ...flags, '--rate', '25', '--no-progress'],
        emulatorEnv(emulator),
        {
          cwd: dir,
        },
      );
      await until(() => committedRows(checkpoint) > 0, 20_000, 'a first checkpoint');
      run.child.kill('SIGKILL');
      await run.exited;
      const { out } = await status(['slow.yaml', '-o', first]);
      const command = `geobatch run slow.yaml ${given} --rate 25 --resume`;
      expect(out).toContain(`\n  to go on: ${command}\n`);
      expect(out).not.toContain('--restart-if-changed');
      const resumed = cli([...command.split(' ').slice(1), '--no-progress'], emulatorEnv(emulator), {
        cwd: dir,
      });
      expect(await resumed.exited, resumed.err()).toBe(3);
      expect(resumed.err()).not.toContain('CHECKPOINT_MISMATCH');
    },
    40_000,
  );
});

describe('geobatch status <job>: a run stopped with Ctrl-C', () => {
  it('gives the error its summary ended with, the progress and the --resume command with the -o given', async () => {
    const checkpoint = join(dir, 'stopped/points.csv.checkpoint.json');
    const args = ['slow.yaml', '-o', 'stopped/points.csv'];
    const run = cli(['run', ...args, '--rate', '25', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    await until(() => committedRows(checkpoint) > 0, 20_000, 'a first checkpoint');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    const { code, out } = await status(args);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^slow\.yaml: stopped \(exit 1\), ended \d{4}-[\d-]+T[\d:.]+Z \(\d+s ago\)$/);
    expect(lines[1]).toBe('  ABORTED: The run was interrupted');
    expect(lines[2]).toMatch(/^ {2}progress: \d+ rows? committed/);
    expect(lines.slice(3)).toEqual([
      '  checkpoint kept: stopped/points.csv.checkpoint.json; rerun with --resume to continue',
      '  to go on: geobatch run slow.yaml -o stopped/points.csv --rate 25 --resume',
      '  output   stopped/points.csv (not finished: the rows so far are in stopped/points.csv.partial)',
    ]);
    const json = JSON.parse((await status([...args, '--json'])).out);
    expect(json).toMatchObject({
      state: 'stopped',
      lock: null,
      stop: { crashed: false, error: { code: 'ABORTED' } },
      summary: { ended: 'stopped', exitCode: 1 },
    });
  });
});

describe('geobatch status: errors, and the queue form', () => {
  it('refuses a job file that does not load with exit 2, CONFIG_INVALID, as validate does', async () => {
    const { code, out, err } = await status(['bad.yaml']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^geobatch: .*bad\.yaml.*no-such-kind/);
    const refused = await jobStatus(join(dir, 'bad.yaml'), undefined).catch((error: unknown) => error);
    expect(isGeobatchError(refused) && refused.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(refused) && refused.context.file).toContain('bad.yaml');
    // A .yaml that is not there is a job file not found, never a queue run's id.
    const missing = await status(['missing.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^geobatch: missing\.yaml: no such job file/);
  });

  it('sends a run id that names no file to the queue, and refuses -o there', async () => {
    mkdirSync(join(dir, 'empty'), { recursive: true });
    const run = cli(['status', '3f6c0e1d'], { GEOBATCH_QUEUE: '' }, { cwd: join(dir, 'empty') });
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(/^geobatch: --queue: the queue database is needed\n/);
    const withOutput = cli(
      ['status', '3f6c0e1d', '-o', 'x.csv'],
      { GEOBATCH_QUEUE: '' },
      { cwd: join(dir, 'empty') },
    );
    expect(await withOutput.exited).toBe(2);
    expect(withOutput.err()).toMatch(/^geobatch: -o\/--output: only applies with a job file\n/);
  });
});
