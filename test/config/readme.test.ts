import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { ENGINE_DEFAULTS } from '../../src/engine/options.js';
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

/** The values the reference's `run:` block gives for the engine's bounds, by key. */
function documentedRunValues(readme: string): Record<string, number> {
  const block = /^run:\n((?: {2}\S.*\n)+)/m.exec(readme)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/^ {2}(\w+): (\d+)/gm)].map((m) => [m[1], Number(m[2])]));
}

describe("the README's engine defaults", () => {
  const bounds = ['window', 'dedupCacheSize', 'windowBytes', 'dedupCacheBytes'] as const;

  it('are the ones the engine uses, in the reference and in the memory table', () => {
    const documented = documentedRunValues(README);
    for (const key of bounds) expect(documented[key], key).toBe(ENGINE_DEFAULTS[key]);
    const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;
    expect(README).toContain(`\`windowBytes\` (default ${mib(ENGINE_DEFAULTS.windowBytes)}:`);
    expect(README).toContain(
      `\`dedupCacheSize\` (default ${ENGINE_DEFAULTS.dedupCacheSize.toLocaleString('en')}) and \`dedupCacheBytes\` (default ${mib(ENGINE_DEFAULTS.dedupCacheBytes)},`,
    );
  });

  it('is caught when a documented value drifts', () => {
    const drifted = README.replace(/^( {2}dedupCacheSize: )\d+/m, '$150000');
    expect(documentedRunValues(drifted).dedupCacheSize).toBe(50_000);
    expect(documentedRunValues(drifted).dedupCacheSize).not.toBe(ENGINE_DEFAULTS.dedupCacheSize);
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
