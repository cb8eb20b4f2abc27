/**
 * A distributed run's checkpoint goes on only with its queue: the journal records the queue (its
 * URL without the password) and the run's id, `--resume` without `--queue` is refused before
 * anything is sent (it paid again for every chunk the workers had answered, and left the run in
 * the queue for workers to take up), and the closing line and `geobatch status` give the command
 * with `--queue`, which, the password from PGPASSWORD, finishes the run.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/run/job-file.js';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { cli, committedRows, until } from '../cli/_cli.js';
import { type Bench, idsOf, openBench, writeInput, writeJob } from './_setup.js';

let postgres: TestPostgres;
let bench: Bench;
let job: string;
const ROWS = 300;

beforeAll(async () => {
  postgres = await startPostgres();
  bench = await openBench();
  writeInput(join(bench.dir, 'input.csv'), ROWS);
  job = writeJob(bench.dir, 'input.csv');
}, 120_000);

afterAll(async () => {
  await bench?.emulator.close();
  await postgres?.stop();
});

const geocoded = () => bench.emulator.stats().byInterface.geocoding?.total ?? 0;

describe('a distributed run stopped, resumed without --queue', () => {
  it('is refused with USAGE naming the queue without its password, and the command given with --queue finishes it', async () => {
    const url = await postgres.database();
    const bare = url.replace(`:${PASSWORD}@`, '@');
    expect(bare).not.toBe(url);
    const output = join(bench.dir, 'out', 'dist5.csv');
    const checkpoint = `${output}.checkpoint.json`;
    const worker = cli(['worker', '--queue', url], bench.env);
    // 20 requests a second: the worker is still at the run's chunks when its coordinator is killed.
    const first = cli(
      ['run', job, '-o', output, '--queue', url, '--no-work', '--chunk-rows', '50', '--rate', '20'],
      bench.env,
    );
    await until(() => committedRows(checkpoint) >= 50, 60_000, 'a chunk committed');
    first.child.kill('SIGKILL');
    await first.exited;
    worker.child.kill('SIGTERM');
    await worker.exited;

    // The journal says which queue and run it belongs to, and holds no password.
    const text = readFileSync(checkpoint, 'utf8');
    expect(text).not.toContain(PASSWORD);
    const run = (JSON.parse(text) as { distributed?: { queue: string; run: string } }).distributed?.run;
    expect(JSON.parse(text).distributed).toEqual({
      queue: bare,
      run: expect.stringMatching(/^[0-9a-f]{8,}$/),
    });

    // status gives the command with --queue.
    const status = cli(['status', job, '-o', output], bench.env);
    await status.exited;
    // With the flags the run had, which its checkpoint records: the coordinator's --rate and chunks.
    const flags = '--rate 20 --no-work --chunk-rows 50';
    expect(status.out()).toContain(
      `to go on: geobatch run ${job} -o ${output} ${flags} --resume --queue ${bare}\n`,
    );
    expect(status.out()).toContain(`rerun with --resume --queue ${bare} to continue`);
    expect(status.out()).toContain(`distributed: run ${run} on the queue ${bare}`);
    expect(status.out() + status.err()).not.toContain(PASSWORD);
    const json = cli(['status', job, '-o', output, '--json'], bench.env);
    await json.exited;
    expect(JSON.parse(json.out()).resume).toMatchObject({
      queue: bare,
      run,
      command: `geobatch run ${job} -o ${output} ${flags} --resume --queue ${bare}`,
    });

    // --resume without --queue: refused before anything is sent, the checkpoint left as it was;
    // --restart-if-changed does not start it over in this process either.
    const before = geocoded();
    for (const more of [[], ['--restart-if-changed']]) {
      const refused = cli(['run', job, '-o', output, '--resume', ...more, '--no-progress'], bench.env);
      expect(await refused.exited, refused.err()).toBe(2);
      expect(refused.err()).toContain(
        `geobatch: Checkpoint ${checkpoint} is of a distributed run (run ${run} on the queue ${bare}): --resume without --queue would answer its rows again in this process`,
      );
      expect(refused.err()).toContain(
        `hint: To go on with its workers, run \`geobatch run ${job} -o ${output} --resume ${more.join(' ')}${more.length > 0 ? ' ' : ''}--no-progress --queue ${bare}\``,
      );
      expect(refused.err()).toContain(`geobatch queue prune --queue ${bare} --include-resumable`);
      expect(refused.err()).not.toContain(PASSWORD);
      expect(readFileSync(checkpoint, 'utf8')).toBe(text);
    }
    // A run without --resume is told to pass --resume with the queue, not --resume alone.
    const fresh = cli(['run', job, '-o', output, '--no-progress'], bench.env);
    expect(await fresh.exited, fresh.err()).toBe(2);
    expect(fresh.err()).toContain(`hint: Pass --resume --queue ${bare} (the password`);
    expect(fresh.err()).not.toContain(PASSWORD);
    expect(readFileSync(checkpoint, 'utf8')).toBe(text);
    // The library refuses it too, with its code and context.
    const error = await runJobFile(job, { output, resume: true, emulator: bench.emulator }).catch(
      (caught: unknown) => caught,
    );
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: checkpoint,
      field: 'queue',
      expected: `--queue ${bare}`,
      received: 'no --queue',
    });
    expect(geocoded()).toBe(before);
    expect(readFileSync(checkpoint, 'utf8')).toBe(text);

    // --queue naming another database, which does not hold the run: refused as well, before
    // anything is sent (made anew there, it bought every row after the checkpoint again).
    const other = (await postgres.database()).replace(`:${PASSWORD}@`, '@');
    const wrong = cli(['run', job, '-o', output, '--resume', '--queue', other, '--no-progress'], {
      ...bench.env,
      PGPASSWORD: PASSWORD,
    });
    expect(await wrong.exited, wrong.err()).toBe(2);
    expect(wrong.err()).toContain(
      `geobatch: Checkpoint ${checkpoint} is of the distributed run ${run} on the queue ${bare}, which the queue ${other} does not hold`,
    );
    expect(wrong.err()).toContain(`hint: Run the same command with --queue ${bare} instead (the password`);
    expect(wrong.err()).not.toContain(PASSWORD);
    expect(geocoded()).toBe(before);
    expect(readFileSync(checkpoint, 'utf8')).toBe(text);

    // The command given, the password from PGPASSWORD: stopped with Ctrl-C once it works, its
    // closing line gives the command with --queue again; run once more, it finishes the run.
    const env = { ...bench.env, PGPASSWORD: PASSWORD };
    const second = cli(['run', job, '-o', output, '--resume', '--queue', bare, '--rate', '20'], env);
    await until(() => geocoded() > before, 60_000, 'requests of the resumed run');
    second.child.kill('SIGINT');
    expect(await second.exited, second.err()).toBe(1);
    expect(second.err()).toContain(`rerun with --resume --queue ${bare} to continue`);
    expect(second.err()).not.toContain(PASSWORD);
    const summary = JSON.parse(readFileSync(`${output}.summary.json`, 'utf8'));
    expect(summary.resume).toMatchObject({ checkpoint, queue: bare });

    const third = cli(['run', job, '-o', output, '--resume', '--queue', bare], env);
    // Exit 3: the emulator fails a few of the addresses.
    expect([0, 3], third.err()).toContain(await third.exited);
    expect(idsOf(output)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(existsSync(checkpoint)).toBe(false);
  }, 240_000);
});
