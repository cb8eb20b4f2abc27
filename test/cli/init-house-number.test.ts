/**
 * A column named only `Nr`, `No` or `Number` is taken for the house number when the file bears it
 * out, and not when it is a record number: a record number sent as the house number is answered
 * with the wrong house, as ok.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { expectGolden } from './init-golden.js';

let dir: string;

beforeAll(() => {
  dir = tempDir();
});

async function mappingOf(name: string, csv: string) {
  const path = join(dir, name);
  writeFileSync(path, csv);
  const result = await initJobFile(path, { output: join(dir, `${name}.yaml`) });
  expect(result.candidate.kind.name).toBe('geocode');
  const mapping = Object.fromEntries(
    [...result.candidate.mapping].map(([field, guess]) => [field, guess.column]),
  );
  return { mapping, text: result.text };
}

describe('geobatch init: a column named only "number"', () => {
  it('is not the house number when it counts the rows across different streets', async () => {
    const { mapping, text } = await mappingOf(
      'records.csv',
      'Nr;Straße;PLZ;Ort\n1;Hauptstraße;10115;Berlin\n2;Kirchweg;80331;München\n3;Ring;50667;Köln\n',
    );
    expect(mapping).toEqual({ street: 'Straße', zip: 'PLZ', city: 'Ort' });
    expectGolden('records.geocode.yaml', text, dir);
  });

  it('is not the house number when the street column carries the numbers', async () => {
    const { mapping, text } = await mappingOf(
      'numbered-streets.csv',
      'Nr;Straße;PLZ;Ort\n7;Hauptstraße 5;10115;Berlin\n3;Kirchweg 7a;80331;München\n',
    );
    expect(mapping).toEqual({ street: 'Straße', zip: 'PLZ', city: 'Ort' });
    expect(text).toMatch(
      /^ {2}# houseNo: +# no column found \(Nr not taken: Straße holds the house numbers\)$/m,
    );
  });

  it('is not the house number without a street column', async () => {
    const { mapping } = await mappingOf('no-street.csv', 'No,PLZ,Ort\n12,10115,Berlin\n7,80331,München\n');
    expect(mapping).toEqual({ zip: 'PLZ', city: 'Ort' });
  });

  it('is not the house number when its values are not house numbers', async () => {
    const { mapping } = await mappingOf(
      'codes.csv',
      'Number,Street,Zip,City\nK-17,Hauptstraße,10115,Berlin\nK-18,Kirchweg,80331,München\n',
    );
    expect(mapping).toEqual({ street: 'Street', zip: 'Zip', city: 'City' });
  });

  it('is the house number beside a street when its values look like house numbers', async () => {
    const { mapping } = await mappingOf(
      'houses.csv',
      'Straße;Nr;PLZ;Ort\nHauptstraße;12;10115;Berlin\nKirchweg;7a;80331;München\nRing;3-5;50667;Köln\n',
    );
    expect(mapping).toEqual({ street: 'Straße', houseNo: 'Nr', zip: 'PLZ', city: 'Ort' });
  });

  it('is the house number along one street, counting up', async () => {
    const { mapping } = await mappingOf(
      'one-street.csv',
      'street,no,zip,city\nRing,1,50667,Köln\nRing,2,50667,Köln\nRing,3,50667,Köln\n',
    );
    expect(mapping.houseNo).toBe('no');
  });

  it('leaves a name that says "house" as it was: Hausnummer is the house number whatever its values', async () => {
    const { mapping } = await mappingOf(
      'hausnummer.csv',
      'Hausnummer;Straße;PLZ;Ort\n1;Hauptstraße;10115;Berlin\n2;Kirchweg;80331;München\n3;Ring;50667;Köln\n',
    );
    expect(mapping.houseNo).toBe('Hausnummer');
  });
});

describe('geobatch init: a column named only "number", for a kind without houseNo', () => {
  it('is never offered as lon or lat, even when its values have decimals', async () => {
    const path = join(dir, 'numbered-points.csv');
    writeFileSync(path, 'No,p,q\n1.5,1.25,2.5\n2.5,3.25,4.75\n');
    const result = await initJobFile(path, { kind: 'elevation', output: join(dir, 'numbered-points.yaml') });
    expect(result.candidate.undecided).toEqual(['p', 'q']);
    expect(result.text).toMatch(/^ {2}lon: "TODO: longitude, one of p, q\?" +# TODO: one of p, q\?/m);
  });
});
