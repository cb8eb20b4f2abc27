import { describe, expect, it } from 'vitest';
import { readPoint } from '../../src/jobs/_fields.js';
import { numberTextKeys } from '../../src/number-texts.js';
import type { ReadItem, Row } from '../../src/types.js';
import { readText, seeded } from './_read.js';

function rowOf(item: ReadItem | undefined): Row {
  if (item?.kind !== 'row') throw new Error(`expected a row, got ${JSON.stringify(item)}`);
  return item;
}

const LINE =
  '{"id":12345678901234567891,"code":1.50,"z":-0,"big":1e400,"tiny":1e-400,"n":7,"f":0.5,"e":1e+21}';

describe('JSON numbers a double cannot repeat as written', () => {
  it('NDJSON: keeps their text, and leaves every other number a number', async () => {
    const { items } = await readText(`${LINE}\n`, 'ndjson');
    const { fields } = rowOf(items[0]);
    expect({ ...fields }).toEqual({
      id: '12345678901234567891',
      code: '1.50',
      z: '-0',
      big: '1e400',
      tiny: '1e-400',
      n: 7,
      f: 0.5,
      e: 1e21,
    });
    expect(numberTextKeys(fields)).toEqual(['id', 'code', 'z', 'big', 'tiny']);
    expect(Object.keys(fields)).toEqual(['id', 'code', 'z', 'big', 'tiny', 'n', 'f', 'e']);
  });

  it('NDJSON: leaves a line of plain numbers without a list of number texts', async () => {
    const { items } = await readText('{"id":9007199254740991,"lon":13.404954,"lat":52.520008}\n', 'ndjson');
    const { fields } = rowOf(items[0]);
    expect({ ...fields }).toEqual({ id: 9007199254740991, lon: 13.404954, lat: 52.520008 });
    expect(numberTextKeys(fields)).toBeUndefined();
  });

  it('NDJSON: keeps them as written inside nested values too', async () => {
    const { items } = await readText('{"a":{"b":1.50,"c":[12345678901234567891,-0,2]}}\n', 'ndjson');
    expect({ ...rowOf(items[0]).fields }).toEqual({ a: '{"b":1.50,"c":[12345678901234567891,-0,2]}' });
  });

  it('NDJSON: finds every one, whatever its form and spacing (randomised)', async () => {
    const random = seeded(7);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
    const number = (): string => {
      const sign = random() < 0.3 ? '-' : '';
      const whole =
        random() < 0.3 ? '0' : `${1 + Math.floor(random() * 9)}${digits(Math.floor(random() * 22))}`;
      const fraction = random() < 0.6 ? `.${digits(1 + Math.floor(random() * 20))}` : '';
      const exponent =
        random() < 0.25
          ? `${random() < 0.5 ? 'e' : 'E'}${['', '+', '-'][Math.floor(random() * 3)]}${1 + Math.floor(random() * 400)}`
          : '';
      return `${sign}${whole}${fraction}${exponent}`;
    };
    const texts = Array.from({ length: 3000 }, number);
    const lines = texts.map((t, i) =>
      i % 3 === 0 ? `{"k": ${t} , "s":"x"}` : i % 3 === 1 ? `{"s":"e1","k":${t}}` : `{"k":${t}}`,
    );
    const { items } = await readText(`${lines.join('\n')}\n`, 'ndjson');
    const wrong = texts.filter((text, i) => {
      const value = rowOf(items[i]).fields.k;
      return String(Number(text)) === text ? value !== Number(text) : value !== text;
    });
    expect(texts.filter((t) => String(Number(t)) !== t).length).toBeGreaterThan(1000);
    expect(wrong).toEqual([]);
  });

  it('GeoJSON: keeps their text in properties, while geometry coordinates stay numbers', async () => {
    const feature =
      '{"type":"Feature","properties":{"id":12345678901234567891,"code":1.50,"z":-0,"n":7,"o":{"p":1.50}},' +
      '"geometry":{"type":"Point","coordinates":[8.40000000000000000001,49.0]}}';
    const { items } = await readText(`{"type":"FeatureCollection","features":[${feature}]}`, 'geojson');
    const row = rowOf(items[0]);
    expect({ ...row.fields }).toEqual({
      id: '12345678901234567891',
      code: '1.50',
      z: '-0',
      n: 7,
      o: '{"p":1.50}',
    });
    // The nested object is kept as its JSON text too, for JSON outputs to write it back as the object.
    expect(numberTextKeys(row.fields)).toEqual(['id', 'code', 'z', 'o']);
    expect(row.geometry).toEqual({ type: 'Point', coordinates: [8.4, 49] });
  });

  it('NDJSON: lists a nested object or array with the kept texts, also when every number is exact', async () => {
    const { items } = await readText(
      '{"id":1,"meta":{"tags":["a"],"n":2},"list":[1,2],"s":"{not nested}"}\n',
      'ndjson',
    );
    const row = rowOf(items[0]);
    expect({ ...row.fields }).toEqual({
      id: 1,
      meta: '{"tags":["a"],"n":2}',
      list: '[1,2]',
      s: '{not nested}',
    });
    expect(numberTextKeys(row.fields)).toEqual(['meta', 'list']);
  });

  it('lets a job read kept coordinates as it reads CSV text', async () => {
    const { items } = await readText('{"lon":13.404953999999999999,"lat":52.5200080000}\n', 'ndjson');
    const row = rowOf(items[0]);
    expect(row.fields).toMatchObject({ lon: '13.404953999999999999', lat: '52.5200080000' });
    expect(readPoint(row, {})).toEqual([13.404954, 52.520008]);
  });
});
