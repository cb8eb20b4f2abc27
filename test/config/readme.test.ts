import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { ENGINE_DEFAULTS } from '../../src/engine/options.js';
import { readDestinations } from '../../src/jobs/_destinations.js';
import type { MatrixPort } from '../../src/jobs/_ports.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import type { Row } from '../../src/types.js';
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
  it("call the routing point limit the emulator's, not the service's: the spec leaves it not shown", () => {
    // ROUTING_MAX_POINTS is an EMULATOR CHOICE; the spec: upper bounds of point counts "not shown".
    // (Elevation's 500 is the spec's own limit: only 1000 is the emulator's.)
    const claims = /the service takes 1000|1000[^\n]*(the service takes|the service's limit)/i;
    const texts = [
      ...files.map((file) => [file, readFileSync(path.join(ROOT, 'jobs', file), 'utf8')] as const),
      ['README.md', README] as const,
    ];
    for (const [name, text] of texts) expect(text, name).not.toMatch(claims);
    for (const file of ['match.yaml', 'trip.yaml'])
      expect(readFileSync(path.join(ROOT, 'jobs', file), 'utf8'), file).toMatch(/1000: the emulator's limit/);
  });
});

describe("the README's matrix section", () => {
  const section = README.slice(README.indexOf('### matrix:'), README.indexOf('### address-search:'));
  const flat = section.replace(/\s+/g, ' ');
  const row = (fields: Record<string, string>, point?: [number, number], index = 0): Row => ({
    kind: 'row',
    ref: { index, line: index + 2 },
    fields,
    ...(point === undefined ? {} : { geometry: { type: 'Point', coordinates: point } }),
  });
  const client = {} as MatrixPort;
  const origins = (job: ReturnType<typeof createMatrixJob>, r: Row) => {
    const items = job.plan(r);
    return Array.isArray(items) ? items.map((item) => item.origin) : items;
  };

  it('says where each shape reads its points from when they are not mapped, as the job reads them', async () => {
    // Cross mode: the origin from a Point geometry, else the conventional columns; a destination alike.
    expect(flat).toContain(
      "The origin is read from `mapping.lon`/`mapping.lat`, else from the row's Point geometry (a GeoJSON input), else from the columns named lon/lng/longitude/x and lat/latitude/y (in any case); each destination alike from the destinations file's own `mapping.lon`/`mapping.lat`, else its Point geometry, else its columns so named.",
    );
    const cross = createMatrixJob(client, { mapping: {}, destinations: [{ id: '1', point: [13.4, 52.5] }] });
    expect(origins(cross, row({ lon: '1', lat: '2' }, [8.6, 49.7]))).toEqual([[8.6, 49.7]]);
    expect(origins(cross, row({ LNG: '9', Latitude: '48' }))).toEqual([[9, 48]]);
    async function* one() {
      yield row({ name: 'A', Longitude: '13.4', LAT: '52.5' });
      yield row({ name: 'B' }, [8.4, 49], 1);
    }
    const destinations = await readDestinations(one(), { path: 'd.ndjson' }, 'd.ndjson', {});
    expect(destinations.map((d) => d.point)).toEqual([
      [13.4, 52.5],
      [8.4, 49],
    ]);
    // Pairs mode: the origin from the conventional columns, never a geometry; the destination mapped.
    expect(flat).toContain(
      'unmapped, the origin falls back to the columns named lon/lng/longitude/x and lat/latitude/y, never to a Point geometry, and the destination to nothing',
    );
    const pairs = createMatrixJob(client, {
      mapping: { destinationLon: { column: 'dx' }, destinationLat: { column: 'dy' } },
    });
    expect(origins(pairs, row({ x: '10', y: '50', dx: '11', dy: '51' }, [8.6, 49.7]))).toEqual([[10, 50]]);
  });
});

describe("the README's output examples", () => {
  it('show, under a golden file’s header, only lines that golden file holds', () => {
    const dir = path.join(ROOT, 'test/fixtures/golden');
    const goldens = readdirSync(dir).map((file) => readFileSync(path.join(dir, file), 'utf8').split('\n'));
    let shown = 0;
    for (const [, block] of README.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
      const [header, ...lines] = (block as string).trimEnd().split('\n');
      const same = goldens.filter((golden) => golden[0] === header);
      if (same.length === 0 || lines.length === 0) continue;
      for (const line of lines) {
        shown++;
        expect(
          same.some((golden) => golden.includes(line)),
          `README shows a line no golden file under ${header?.slice(0, 40)}... holds:\n${line}`,
        ).toBe(true);
      }
    }
    // The job kinds' examples: a dozen files' worth, not none found by a broken pattern.
    expect(shown).toBeGreaterThan(15);
  });
});
