import { describe, expect, it } from 'vitest';
import { toConfigError } from '../../src/config/_issues.js';
import { keysAt, nearest } from '../../src/config/_suggest.js';
import { parseJobFile } from '../../src/config/load.js';
import { jobFileSchema } from '../../src/config/schema.js';
import { stepsFileSchema } from '../../src/config/steps.js';
import { configError } from '../fixtures/config-error.js';

function load(text: string) {
  return parseJobFile(text, '/jobs/x.yaml', {}, 'jobs/x.yaml');
}

describe('job-file errors point at what was meant', () => {
  it('names the nearest job kind for a misspelt one, in plain words', () => {
    const error = configError(() => load('job: geocod\ninput: a.csv\noutput: b.csv\n'));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/^jobs\/x\.yaml: job: expected one of geocode, reverse-geocode, /);
    expect(error.message).toMatch(/, got "geocod" \(did you mean "geocode"\?\)$/);
    expect(error.message).not.toMatch(/discriminator/i);
  });

  it('names the key meant for an unknown one, and what a missing one takes', () => {
    const error = configError(() =>
      load('job: geocode\ninputt: a.csv\noutput: b.csv\nmapping: { zip: plz }\n'),
    );
    expect(error.message).toBe(
      'jobs/x.yaml: input: expected string or object, got nothing\n' +
        'jobs/x.yaml: (top level): unknown key `inputt` (did you mean `input`?)',
    );
    const nested = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: plz }\nrun: { windw: 10 }\n'),
    );
    expect(nested.message).toBe('jobs/x.yaml: run: unknown key `windw` (did you mean `window`?)');
  });

  it('lists the keys an object takes when an unknown key is no near miss, in a step too', () => {
    const mapping = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: plz, citty: city, zzz: x }\n'),
    );
    expect(mapping.code).toBe('CONFIG_INVALID');
    expect(mapping.message).toBe(
      'jobs/x.yaml: mapping: unknown keys `citty` (did you mean `city`?), `zzz`; known here: ' +
        '`street`, `houseNo`, `zip`, `city`, `district`, `country`, `cityPart`, `cityAddOn`, `singleSlot`',
    );
    expect(mapping.context).toMatchObject({ file: 'jobs/x.yaml', path: 'mapping' });
    // The kind the file names decides what its options take, in each step of a pipeline.
    const steps = configError(() =>
      load(
        'input: a.csv\noutput: b.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz }\n    options: { maxResult: 3 }\n' +
          '  - job: elevation\n    options: { batchsize: 3 }\n',
      ),
    );
    expect(steps.message).toBe(
      'jobs/x.yaml: steps[0].options: unknown key `maxResult`; known here: `prefix`, `coordFormat`\n' +
        'jobs/x.yaml: steps[1].options: unknown key `batchsize` (did you mean `batchSize`?)',
    );
  });

  it('lists at most 24 keys, and says where the rest are', () => {
    const keys = Array.from({ length: 30 }, (_, i) => `key${String(i).padStart(2, '0')}`);
    const issue = { code: 'unrecognized_keys' as const, keys: ['zzzzzz'], path: ['run'], message: '' };
    const error = toConfigError('x.yaml', { run: { zzzzzz: 1 } }, [issue], new Set(keys), () => keys);
    expect(error.message).toBe(
      `x.yaml: run: unknown key \`zzzzzz\`; known here: ${keys
        .slice(0, 24)
        .map((k) => `\`${k}\``)
        .join(', ')} and 6 more (README, job file reference)`,
    );
  });

  it('names the value meant for a misspelt choice', () => {
    const error = configError(() =>
      load('job: geocode\ninput: { path: a.csv, format: cvs }\noutput: b.csv\nmapping: { zip: plz }\n'),
    );
    expect(error.message).toBe(
      'jobs/x.yaml: input.format: expected one of "csv", "ndjson", "geojson", got "cvs" (did you mean "csv"?)',
    );
  });

  it('says what a value of several forms takes, and which choice was meant', () => {
    const nearest = configError(() =>
      load(
        'job: address-search\ninput: a.csv\noutput: b.csv\nmapping: { lon: x, lat: y }\noptions: { branches: "1", nearest: alll }\n',
      ),
    );
    expect(nearest.message).toBe(
      'jobs/x.yaml: options.nearest: expected number or "all", got "alll" (did you mean "all"?)',
    );
    const cache = configError(() => load('job: elevation\ninput: a.csv\noutput: b.csv\ncache: 5\n'));
    expect(cache.message).toBe('jobs/x.yaml: cache: expected false or string or object, got 5');
    expect(cache.message).not.toMatch(/Invalid input/);
  });

  it('names a misspelt key of a mapping field’s column or constant, not the key it then lacks', () => {
    const column = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: { colum: plz } }\n'),
    );
    expect(column.code).toBe('CONFIG_INVALID');
    expect(column.message).toBe('jobs/x.yaml: mapping.zip: unknown key `colum` (did you mean `column`?)');
    expect(column.context).toMatchObject({ path: 'mapping.zip' });
    const value = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: plz, country: { valeu: DE } }\n'),
    );
    expect(value.message).toBe('jobs/x.yaml: mapping.country: unknown key `valeu` (did you mean `value`?)');
    // A key one of the forms knows is not misspelt: its value is what is wrong.
    const wrongType = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: { column: true } }\n'),
    );
    expect(wrongType.message).toBe('jobs/x.yaml: mapping.zip.column: expected string, got true');
    const apart = configError(() =>
      load(
        'job: reverse-geocode\ninput: a.csv\noutput: b.csv\noptions: { coordFormat: { input: MERCATOR, ouput: GEODECIMAL } }\n',
      ),
    );
    expect(apart.message).toBe(
      'jobs/x.yaml: options.coordFormat: unknown key `ouput` (did you mean `output`?)',
    );
  });

  it('refuses a word for "no cache" that would name a cache file, saying what turns it off', () => {
    const job = (cache: string) => `job: elevation\ninput: a.csv\noutput: b.csv\ncache: ${cache}\n`;
    for (const [word, meant] of [
      ['no', 'false'],
      ['none', 'false'],
      ['fasle', 'false'],
      ['of', 'off'],
    ] as const) {
      const error = configError(() => load(job(word)));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/x.yaml: cache: expected a cache file, a postgres:// URL, or \`${meant}\` for no cache (a word like this would name a cache file), got "${word}"`,
      );
      expect(error.context).toMatchObject({ file: 'jobs/x.yaml', path: 'cache' });
    }
    for (const ok of ['off', 'false', '"false"', 'cache.sqlite', 'postgres://db/geo', '{ path: "no" }'])
      expect(() => load(job(ok)), ok).not.toThrow();
  });

  it('says how to write a constant a mapping gives without `value:`, and what else a field takes', () => {
    const mapping = (text: string) =>
      configError(() => load(`job: isochrone\ninput: a.csv\noutput: b.csv\nmapping: { minutes: ${text} }\n`));
    const constant = mapping('15');
    expect(constant.code).toBe('CONFIG_INVALID');
    expect(constant.message).toBe(
      'jobs/x.yaml: mapping.minutes: expected a column name, or a constant written { value: 15 }, got 15',
    );
    // `{ value: true }` is refused too: a boolean is told what a field takes, not to write it so.
    expect(mapping('true').message).toBe(
      'jobs/x.yaml: mapping.minutes: expected a column name, { column: <name> } or { value: <constant> }, one of them, got true',
    );
    expect(mapping('[15]').message).toBe(
      'jobs/x.yaml: mapping.minutes: expected a column name, { column: <name> } or { value: <constant> }, one of them, got [15]',
    );
  });

  it('suggests only what is near: a few edits, fewer for short words', () => {
    expect(nearest('windw', ['window', 'run'])).toBe('window');
    expect(nearest('ouptut', ['output', 'input'])).toBe('output');
    expect(nearest('xyz', ['zip', 'city'])).toBeUndefined();
    expect(nearest('concurrency', ['concurrency'])).toBeUndefined();
  });

  it('finds the keys of the object at a path, following the job kind the document names', () => {
    const doc = { job: 'elevation', options: { batchsize: 3 }, steps: [{ job: 'geocode' }] };
    expect(keysAt(jobFileSchema, doc, ['options'])).toContain('batchSize');
    expect(keysAt(jobFileSchema, doc, [])).toEqual(
      expect.arrayContaining(['job', 'input', 'mapping', 'run']),
    );
    expect(keysAt(stepsFileSchema, doc, ['steps', 0, 'mapping'])).toContain('houseNo');
    // No kind named, a kind unknown, a value of several forms, or a path past the objects: none.
    expect(keysAt(jobFileSchema, { job: 'geocod' }, ['options'])).toBeUndefined();
    expect(keysAt(jobFileSchema, {}, [])).toBeUndefined();
    expect(keysAt(jobFileSchema, doc, ['cache'])).toBeUndefined();
    expect(keysAt(jobFileSchema, doc, ['options', 'batchSize'])).toBeUndefined();
  });
});
