/** The generated input and job file of the distributed-run tests (no vitest: scripts use it too). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Place {
  readonly street: string;
  readonly plz: string;
  readonly city: string;
}

/** The sample's records, as cells. */
function samplePlaces(): string[][] {
  const sample = readFileSync(join(ROOT, 'samples/community-centres.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1);
  return sample.map((line) => line.split(',')).filter((cells) => cells.length === 5);
}

/** The sample's addresses, each row a distinct request (its own house number). */
export function writeInput(path: string, rows: number, bad: readonly number[] = []): void {
  const places = samplePlaces();
  const lines = ['id,street,housenumber,plz,city'];
  for (let i = 0; i < rows; i++) {
    const [, street, , plz, city] = places[i % places.length] as string[];
    // Planted failures: a malformed postcode fails before any request.
    lines.push(`${i + 1},${street},${i + 1},${bad.includes(i) ? 'X12' : plz},${city}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** `rows` rows of `distinct` addresses in turn: row i asks for the same address as row i + distinct. */
export function writeRepeatingInput(path: string, rows: number, distinct: number): void {
  const places = samplePlaces();
  const lines = ['id,street,housenumber,plz,city'];
  for (let i = 0; i < rows; i++) {
    const k = i % distinct;
    const [, street, , plz, city] = places[k % places.length] as string[];
    lines.push(`${i + 1},${street},${k + 1},${plz},${city}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export function writeJob(dir: string, input: string): string {
  const file = join(dir, 'geocode.yaml');
  writeFileSync(
    file,
    [
      'job: geocode',
      `input: ${input}`,
      'output: out/geocoded.csv',
      'mapping:',
      '  street: street',
      '  houseNo: housenumber',
      '  zip: plz',
      '  city: city',
      '  country: { value: DE }',
      'options:',
      '  prefix: geo_',
      '',
    ].join('\n'),
  );
  return file;
}
