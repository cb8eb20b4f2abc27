/**
 * A kind that asks in several forms gets a draft of one: address-search by an address when the
 * input has address columns, by a position when it has coordinates only; area-export by rectangles
 * or by ids. init mapped every key a column named, and `validate` refused the draft of a file with
 * an address and coordinates as two forms. Likewise an isochrone's minutes and metres, of which a
 * row gives one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeInit } from '../../src/cli/_init-notes.js';
import { initJobFile } from '../../src/cli/init.js';
import { loadJobFile } from '../../src/config/load.js';
import { runJobFile } from '../../src/run/job-file.js';
import { emulatorWorkspace } from '../fixtures/run-helpers.js';
import { cli } from './_cli.js';

const ws = emulatorWorkspace('geobatch-init-forms-');

const input = ws.file;

const columnsOf = (mapping: ReadonlyMap<string, { column: string }>) =>
  Object.fromEntries([...mapping].map(([field, guess]) => [field, guess.column]));

/** The draft with its one required TODO, the categories, done as a user would. */
function withBranches(job: string): void {
  writeFileSync(job, readFileSync(job, 'utf8').replace(/^ {2}branches: .*$/m, '  branches: "1201"'));
}

const ADDRESSES_WITH_POINTS =
  'name,street,houseNo,zip,city,lon,lat\nA,Kirchstraße,15,54441,Kanzem,6.57,49.61\nB,Hauptstraße,5,10115,Berlin,13.39,52.53\n';

describe('geobatch init: one form for an address search', () => {
  it('drafts the address form for address columns beside coordinates, which validate accepts as drafted', async () => {
    const job = join(ws.dir, 'both.yaml');
    const result = await initJobFile(input('both.csv', ADDRESSES_WITH_POINTS), {
      kind: 'address-search',
      output: job,
    });
    expect(columnsOf(result.candidate.mapping)).toEqual({
      zip: 'zip',
      city: 'city',
      street: 'street',
      houseNo: 'houseNo',
    });
    expect(result.text).toMatch(
      /^ {2}# lon: +# "lon" not taken: one form per job, and the address form is drafted \(zip, city, street, houseNo\); for the position form, map lon, lat and comment out zip, city, street, houseNo$/m,
    );
    expect(describeInit(result, false, true)).toContain(
      '  form     address (lon, lat left out: one form per job; the file says how to take the other)',
    );
    // No TODO for a point the address form never reads; branches is the one thing to set.
    expect(result.todos).toEqual([]);
    expect(result.candidate.problems).toEqual([expect.stringContaining('options.branches')]);
    withBranches(job);
    const validate = cli(['validate', job]);
    expect(await validate.exited).toBe(0);
    expect(validate.out()).toContain('valid address-search job');
    const summary = await runJobFile(job, { emulator: ws.emulator });
    expect(summary.rows).toMatchObject({ read: 2, failed: 0 });
  });

  it('drafts the position form for a street and house number beside coordinates, with no zip or city', async () => {
    // The address form needs a zip, city or location: drafted from a street alone, every row failed.
    const job = join(ws.dir, 'street-points.yaml');
    const result = await initJobFile(
      input(
        'street-points.csv',
        'name,street,houseNo,lat,lon\nA,Kirchstraße,15,49.61,6.57\nB,Hauptstraße,5,52.53,13.39\n',
      ),
      { kind: 'address-search', output: job },
    );
    expect(result.candidate.form?.form).toBe('position');
    expect(columnsOf(result.candidate.mapping)).toEqual({ lon: 'lon', lat: 'lat' });
    expect(result.text).toMatch(
      /^ {2}# street: +# TODO: "street" not taken: the address form needs zip, city or location beside street, houseNo, and no column gives one \(the service searches a street only within a postcode or a city, not near a point\), so the position form is drafted \(lon, lat\); to search by the address, add a column of zip, city or location/m,
    );
    expect(result.text).toMatch(/^ {2}# houseNo: +# "houseNo" not taken: see street above$/m);
    expect(describeInit(result, false, true)).toContain(
      '  form     position (street, houseNo left out: the address form needs zip, city or location too, which no column gives;',
    );
    expect(result.candidate.problems).toEqual([expect.stringContaining('options.branches')]);
    withBranches(job);
    const validate = cli(['validate', job]);
    expect(await validate.exited).toBe(0);
    expect(validate.out()).toContain('valid address-search job');
    expect(validate.out()).toMatch(/mapping +lon <- column lon, lat <- column lat\n/);
    expect(validate.out()).not.toContain('would fail');
    const summary = await runJobFile(job, { emulator: ws.emulator });
    expect(summary.rows).toMatchObject({ read: 2, failed: 0 });
  });

  it('drafts the position form for coordinates only', async () => {
    const job = join(ws.dir, 'points.yaml');
    const result = await initJobFile(input('points.csv', 'name,lon,lat\nA,6.57,49.61\nB,13.39,52.53\n'), {
      kind: 'address-search',
      output: job,
    });
    expect(columnsOf(result.candidate.mapping)).toEqual({ lon: 'lon', lat: 'lat' });
    withBranches(job);
    expect((await loadJobFile(job)).steps[0]?.kind).toBe('address-search');
  });

  it('drafts rectangles over ids for an area export whose file has both', async () => {
    const job = join(ws.dir, 'areas.yaml');
    const result = await initJobFile(
      input('areas.csv', 'area,osmid,west,south,east,north\na,62422,13.3,52.5,13.45,52.55\n'),
      { kind: 'area-export', output: job },
    );
    expect(columnsOf(result.candidate.mapping)).toEqual({
      west: 'west',
      south: 'south',
      east: 'east',
      north: 'north',
    });
    expect(result.text).toMatch(
      /^ {2}# osmid: +# "osmid" not taken: one form per job, and the rectangle form/m,
    );
    expect(result.candidate.problems).toEqual([]);
    await expect(loadJobFile(job)).resolves.toBeDefined();
  });
});

describe('geobatch init: minutes or metres for an isochrone', () => {
  it('maps minutes alone when the rows give both, each of which failed as "not both"', async () => {
    const job = join(ws.dir, 'iso.yaml');
    const result = await initJobFile(
      input('iso.csv', 'id,lon,lat,minutes,metres\n1,8.40,49.01,10,5000\n2,13.40,52.52,15,8000\n'),
      { output: job },
    );
    expect(result.candidate.kind.name).toBe('isochrone');
    expect(columnsOf(result.candidate.mapping)).toEqual({ lon: 'lon', lat: 'lat', minutes: 'minutes' });
    expect(result.text).toMatch(
      /^ {2}# metres: +# "metres" not taken: a row gives minutes or metres, not both, and 2 of the first 2 rows give both; to use metres, map it and comment out minutes$/m,
    );
    const summary = await runJobFile(job, { emulator: ws.emulator });
    expect(summary.rows).toMatchObject({ read: 2, ok: 2, failed: 0 });
  });

  it('keeps both where each row gives one of them', async () => {
    const result = await initJobFile(
      input('iso-either.csv', 'id,lon,lat,minutes,metres\n1,8.40,49.01,10,\n2,13.40,52.52,,8000\n'),
      { output: join(ws.dir, 'iso-either.yaml') },
    );
    expect(columnsOf(result.candidate.mapping)).toMatchObject({ minutes: 'minutes', metres: 'metres' });
    expect(result.candidate.problems).toEqual([]);
  });
});
