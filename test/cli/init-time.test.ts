/**
 * A match's `time` is drafted from a column of numbers only when they are epoch seconds or
 * milliseconds of a plausible date; small numbers (seconds since the start, sequence numbers) are
 * left unmapped with a TODO naming the column, and the draft still validates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeInit } from '../../src/cli/_init-notes.js';
import { initJobFile } from '../../src/cli/init.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli } from './_cli.js';

let dir: string;

beforeAll(() => {
  dir = tempDir();
});

/** A CSV of two vehicles' fixes with the given `t` values. */
function fixes(name: string, times: readonly (number | string)[]): string {
  const path = join(dir, name);
  const rows = times.map((t, i) => `${i < 3 ? 'a' : 'b'},${t},${8.4 + i / 100},${49 + i / 200}`);
  writeFileSync(path, `veh,t,lon,lat\n${rows.join('\n')}\n`);
  return path;
}

describe('geobatch init: a number time of a match', () => {
  it('leaves small numbers unmapped, with a TODO naming the column, and the draft validates', async () => {
    const input = fixes('relative.csv', [0, 5, 12, 0, 30]);
    const job = join(dir, 'relative.yaml');
    const result = await initJobFile(input, { output: job });
    expect(result.candidate.kind.name).toBe('match');
    expect(result.candidate.mapping.get('track')?.column).toBe('veh');
    expect(result.candidate.mapping.has('time')).toBe(false);
    const text = readFileSync(job, 'utf8');
    const line = text.split('\n').find((l) => l.startsWith('  # time:')) ?? '';
    expect(line).toMatch(/TODO: "t" not taken: its numbers \(0 to 30\) are no epoch seconds or milliseconds/);
    expect(line).toMatch(/map it \(time: t\)/);
    expect(describeInit(result, false, false)).toMatch(/^ {2}TODO {5}mapping\.time: "t" not taken/m);
    const validate = cli(['validate', job]);
    expect(await validate.exited).toBe(0);
    expect(validate.out()).toMatch(/valid match job/);
    expect(validate.out()).toMatch(/mapping +track <- column veh, lon <- column lon, lat <- column lat\n/);
  });

  it('maps epoch seconds and epoch milliseconds of a plausible date as the time', async () => {
    const seconds = [1714982400, 1714982405, 1714982412, 1714982400, 1714982430];
    for (const [name, times] of [
      ['seconds.csv', seconds],
      ['millis.csv', seconds.map((s) => s * 1000)],
    ] as const) {
      const result = await initJobFile(fixes(name, times), { output: join(dir, `${name}.yaml`) });
      expect(result.candidate.kind.name).toBe('match');
      expect(result.candidate.mapping.get('time')?.column).toBe('t');
      expect(result.candidate.notes.has('time')).toBe(false);
    }
  });

  it('does not take numbers only some of which are epoch times', async () => {
    const result = await initJobFile(fixes('mixed.csv', [1714982400, 5, 12, 0, 30]), {
      output: join(dir, 'mixed.yaml'),
    });
    expect(result.candidate.mapping.has('time')).toBe(false);
    expect(result.candidate.notes.get('time')).toMatch(/"t" not taken: its numbers \(0 to 1714982400\)/);
  });
});
