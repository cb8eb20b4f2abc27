import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { cellKeys, readmeProblems } from './_readme-keys.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe("the README's job-file reference", () => {
  it('documents exactly the keys the schema accepts, and every yaml job file in it is valid', () => {
    expect(readmeProblems(README)).toEqual([]);
  });

  it('is caught documenting a key the schema rejects', () => {
    const drifted = README.replace('  maxRecordLines: 100 ', '  maxRecordLine: 100  ').replace(
      '`tileSize` (100), `speedProfile`',
      '`tileSize` (100), `tileCount` (2), `speedProfile`',
    );
    const problems = readmeProblems(drifted);
    expect(problems).toContainEqual(expect.stringContaining('input: unknown key `maxRecordLine`'));
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^yaml block \d+: `input.maxRecordLine` is documented but the schema rejects it$/,
      ),
    );
    expect(problems).toContainEqual('matrix: `options.tileCount` is documented but the schema rejects it');
  });

  it('is caught leaving out a key the schema accepts', () => {
    const drifted = README.replace(/^ {2}maxRecordBytes: .*\n/m, '').replace(
      '`onMissingLevel` (`empty` \\| `fail`), ',
      '',
    );
    const problems = readmeProblems(drifted);
    expect(problems).toContain("`input.maxRecordBytes` is in the schema but not in the README's reference");
    expect(problems).toContain(
      "`boundaries options.onMissingLevel` is in the schema but not in the README's reference",
    );
  });

  it('reads keys, nested keys and ignores values in parentheses in a table cell', () => {
    expect(
      cellKeys(
        '`prefix` (`geo_`), `d` ({ `path`, `m` { `lon` } (a note) }), `e` { `f` } (none), `mode` (`a` \\| `b`)',
      ),
    ).toEqual([['prefix'], ['d'], ['d', 'path'], ['d', 'm'], ['d', 'm', 'lon'], ['e'], ['e', 'f'], ['mode']]);
  });
});

describe('the ready job files in jobs/', () => {
  const files = readdirSync(path.join(ROOT, 'jobs')).filter((f) => f.endsWith('.yaml'));

  it.each(files)('%s is valid', async (file) => {
    await expect(loadJobFile(path.join(ROOT, 'jobs', file), {})).resolves.toMatchObject({
      file: path.join(ROOT, 'jobs', file),
    });
  });
});
