/**
 * The decimal mark init declares for a CSV input follows a clear majority of its numbers; the
 * numbers that do not follow it, or a mix with no majority, are a TODO in the draft. A `;` file of
 * decimal commas with one row written with points declared none: the output held `11.571`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { loadJobFile } from '../../src/config/load.js';
import { runJobFile } from '../../src/run/job-file.js';
import { emulatorWorkspace } from '../fixtures/run-helpers.js';

const ws = emulatorWorkspace('geobatch-init-decimal-');

/** Munich's points, `lon;lat` with a decimal comma except in the rows of `withPoints` (0-based). */
function places(name: string, withPoints: readonly number[], places = 4, rows = 18): string {
  const lines = ['name;lon;lat'];
  for (let i = 0; i < rows; i++) {
    const lon = (11.5 + i / 200).toFixed(places);
    const lat = (48.1 + i / 300).toFixed(places);
    const cells = `${lon};${lat}`;
    lines.push(`P${i};${withPoints.includes(i) ? cells : cells.replaceAll('.', ',')}`);
  }
  const path = join(ws.dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The draft's text with its wrapped comments joined again: they wrap by the length of the path. */
function unwrapped(text: string): string {
  return text.replace(/\n {2}# {3}/g, ' ');
}

describe('geobatch init: the decimal mark of a CSV input', () => {
  it('declares "," for 17 rows of decimal commas and one of points, and says which row will fail', async () => {
    const job = join(ws.dir, 'mostly.yaml');
    const result = await initJobFile(places('mostly.csv', [5]), { output: job });
    expect(unwrapped(result.text)).toMatch(
      /^input:\n {2}path: mostly\.csv +#.*\n {2}# TODO: 2 of 36 numbers have a decimal point \(row 6\); a run reports them as row errors: write them with a comma\n {2}decimal: "," +# guessed/m,
    );
    expect(result.text).toMatch(/^ {2}delimiter: ";".*\n {2}decimal: "," +# guessed/m);
    expect((await loadJobFile(job)).input.decimal).toBe(',');
    // The run reads the 17 rows right and fails the one, naming its row, the field and the format;
    // the coordinates it adds are written with a decimal comma.
    const summary = await runJobFile(job, { emulator: ws.emulator });
    expect(summary.rows).toMatchObject({ read: 18, ok: 17, failed: 1 });
    const errors = parse(readFileSync(join(ws.dir, 'out/mostly.reverse-geocode.errors.csv'), 'utf8'), {
      columns: true,
      delimiter: ';',
    }) as Record<string, string>[];
    expect(errors).toEqual([
      expect.objectContaining({
        geobatch_row: '6',
        geobatch_error: 'FIELD_INVALID',
        geobatch_message: expect.stringMatching(
          /^lon: expected a longitude in decimal degrees written with input\.decimal ",".*got `11\.5250`; lat: expected a latitude .*got `48\.1167`$/,
        ),
      }),
    ]);
    const output = readFileSync(join(ws.dir, 'out/mostly.reverse-geocode.csv'), 'utf8').split('\n');
    expect(output[1]).toMatch(/^P0;11,5000;48,1000;\d+,\d+;\d+,\d+;/);
  });

  it('counts `11.571` in a column of degrees with decimal commas as a point, though it could be a thousand', async () => {
    const { text } = await initJobFile(places('three.csv', [2, 9], 3), {
      output: join(ws.dir, 'three.yaml'),
    });
    expect(text).toMatch(/# TODO: 4 of 36 numbers have a decimal point \(rows 3, 10\)/);
    expect(text).toMatch(/^ {2}decimal: "," +# guessed/m);
  });

  it('guesses no mark when neither has a clear majority, and leaves decimal as a TODO', async () => {
    const job = join(ws.dir, 'mixed.yaml');
    const result = await initJobFile(places('mixed.csv', [0, 1, 2, 3, 4, 5, 6, 7]), { output: job });
    expect(unwrapped(result.text)).toContain(
      '  # TODO: mixed decimal marks, 20 numbers with a comma and 16 with a point (the fewer in rows 1, 2, 3, 4, 5 ' +
        'and 3 more), so none is guessed: set decimal to the file\'s mark ("," or ".") and write every number with it;',
    );
    expect(result.text).toMatch(/^ {2}# decimal: "," +# TODO: "," or "\.", as said above$/m);
    expect(result.text).not.toMatch(/^ {2}decimal:/m);
    expect(result.todos).toEqual([]);
    // It loads as drafted: both marks read while none is declared.
    expect((await loadJobFile(job)).input.decimal).toBeUndefined();
  });

  it('says nothing for a majority of points: a comma reads while no mark is declared', async () => {
    const { text } = await initJobFile(
      places(
        'points.csv',
        [...Array(18).keys()].filter((i) => i !== 4),
      ),
      { output: join(ws.dir, 'points.yaml') },
    );
    expect(text).not.toMatch(/^ +#? *decimal:|# TODO/m);
  });
});
