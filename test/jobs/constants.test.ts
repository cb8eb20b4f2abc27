import { afterAll, describe, expect, it } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { JOB_KINDS } from '../../src/jobs/index.js';
import { HEAD, jobDir } from './_file-rules-cases.js';

const dir = jobDir();
afterAll(() => dir.remove());

/** A kind's job file that keeps every other rule: the mapping a constant is put into, and options. */
interface Base {
  readonly mapping?: Readonly<Record<string, string>>;
  readonly options?: string;
}

/** A constant of one mapping key that no row could pass, and the message after `mapping.<key>: `. */
interface Refused extends Base {
  readonly value: string;
  readonly message: string;
}

/** A key whose rows pass any text: why. */
interface Free extends Base {
  readonly free: string;
}

const TEXT = 'any text is sent as it is';
const RECTANGLE = { west: 'w', south: 's', east: 'e', north: 'n' };
const ROUTE = { originLon: 'a', originLat: 'b', destinationLon: 'c', destinationLat: 'd' };
const lat = (value: string): Refused => ({
  value,
  message: `expected a latitude from -90 to 90, got \`${value}\``,
});
const lon = (value: string): Refused => ({
  value,
  message: `expected a longitude from -180 to 180, got \`${value}\``,
});

/**
 * Every mapping key of every kind: a constant each row would refuse, or why there is none. A key a
 * kind adds must be put here, so that its row check is one a constant meets when the file loads.
 */
const KEYS: Readonly<Record<string, Base & { readonly keys: Readonly<Record<string, Refused | Free>> }>> = {
  geocode: {
    mapping: { city: 'ort' },
    keys: {
      street: { free: TEXT },
      houseNo: { free: TEXT },
      zip: { value: '1234X', message: 'expected a 5-digit German postcode, got `1234X`' },
      city: { free: TEXT },
      district: { free: TEXT },
      country: {
        value: 'GER',
        message:
          'expected an ISO country code such as DE (or D, DEU), or a country\'s name in German or English; got "GER"',
      },
      cityPart: { free: TEXT },
      cityAddOn: { free: TEXT },
      singleSlot: { free: TEXT },
    },
  },
  'reverse-geocode': { keys: { lon: lon('181'), lat: lat('-91') } },
  elevation: { keys: { lon: lon('200'), lat: lat('100') } },
  'customer-lookup': {
    mapping: { key: 'k' },
    keys: { key: { value: 'A1|B2', message: 'expected one supplier key, got `A1|B2` (contains |)' } },
  },
  boundaries: { keys: { lon: lon('-200'), lat: lat('90.5') } },
  route: {
    mapping: ROUTE,
    keys: {
      originLon: lon('190'),
      originLat: lat('95'),
      destinationLon: { value: 'east', message: 'expected a longitude in decimal degrees, got `east`' },
      destinationLat: lat('-95'),
      via: {
        value: '8.4;49.0',
        message:
          'point 1: expected `lon,lat` pairs separated by `;` (or a JSON array of [lon, lat] pairs), got `8.4`',
      },
      time: {
        value: '2024-05-06',
        message: 'expected an ISO 8601 date-time such as 2024-05-06T08:30:00+02:00, got `2024-05-06`',
      },
    },
  },
  matrix: {
    mapping: ROUTE,
    keys: {
      originLon: lon('180.5'),
      originLat: lat('91'),
      destinationLon: lon('-181'),
      destinationLat: lat('-90.5'),
      lon: { ...lon('400'), mapping: { lat: 'y' }, options: '{ destinations: { path: d.csv } }' },
      lat: { ...lat('400'), mapping: { lon: 'x' }, options: '{ destinations: { path: d.csv } }' },
    },
  },
  'address-search': {
    options: '{ branches: "1301" }',
    keys: {
      lon: lon('999'),
      lat: lat('99'),
      zip: { free: 'a postcode alone may be partial (a prefix), and a list of them', mapping: { city: 'c' } },
      city: { free: TEXT },
      street: { free: TEXT, mapping: { city: 'c' } },
      houseNo: { free: TEXT, mapping: { city: 'c' } },
      location: { free: TEXT },
      country: {
        value: 'GER',
        mapping: { city: 'c' },
        message:
          'expected an ISO country code such as DE (or D, DEU), or a country\'s name in German or English; got "GER"',
      },
      west: { ...lon('-190'), mapping: RECTANGLE },
      south: { ...lat('-100'), mapping: RECTANGLE },
      east: { ...lon('190'), mapping: RECTANGLE },
      north: { ...lat('100'), mapping: RECTANGLE },
    },
  },
  isochrone: {
    mapping: { minutes: 'm' },
    keys: {
      lon: lon('200'),
      lat: lat('-100'),
      minutes: {
        value: '0',
        message: "expected more than 0 and at most 60 minutes (the service's limit), got 0",
      },
      metres: {
        value: '-500',
        mapping: { metres: 'm' },
        message: 'expected a distance of more than 0 m, got -500',
      },
      grid: {
        value: '35.5',
        message: "expected a whole number from 35 to 150 (the service's limit), got 35.5",
      },
    },
  },
  trip: {
    mapping: { trip: 't' },
    keys: {
      trip: { free: 'one constant trip holds every stop' },
      sequence: {
        value: '1 000',
        message:
          "expected the stop's place in its trip, got `1 000`, a number written with thousands separators; write it without them",
      },
      lon: lon('200'),
      lat: lat('95'),
    },
  },
  match: {
    mapping: { track: 't' },
    keys: {
      track: { free: 'one constant track holds every fix' },
      time: { value: 'soon', message: 'expected an ISO 8601 date-time or a number, got `soon`' },
      lon: lon('200'),
      lat: lat('95'),
    },
  },
  autocomplete: { mapping: { query: 'q' }, keys: { query: { free: TEXT } } },
  'identifier-lookup': {
    mapping: { id: 'y' },
    keys: {
      id: {
        value: 'ymid:4711',
        message:
          'expected a YMID (Base64, such as /AadklP/MvIhD9lUF7z+Xg==) or its YMIDUrlEncoded or YMIDPathEncoded form, got `ymid:4711`: it holds `:`, which no YMID has (letters, digits, + and /, or - and _ in the path-safe form, = padding at the end); is `ymid:` a label? what follows it would be read as an identifier',
      },
    },
  },
  'area-export': {
    mapping: { osmid: 'id' },
    keys: {
      osmid: {
        value: 'way/12',
        message: 'expected a positive integer OSM id (62422, r62422 or relation/62422), got `way/12`',
      },
      west: { ...lon('-200'), mapping: RECTANGLE, options: '{ level: 6 }' },
      south: { ...lat('-95'), mapping: RECTANGLE, options: '{ level: 6 }' },
      east: { ...lon('200'), mapping: RECTANGLE, options: '{ level: 6 }' },
      north: { ...lat('95'), mapping: RECTANGLE, options: '{ level: 6 }' },
    },
  },
};

/** The job file of `kind` with `key` given the constant `value`, its other keys as `rule` or the kind's base say. */
function jobFile(kind: string, key: string, value: string, rule: Base): string {
  const base = KEYS[kind] as Base;
  const entries = Object.entries({ ...(rule.mapping ?? base.mapping ?? {}), [key]: undefined });
  const columns = entries.filter(([name]) => name !== key).map(([name, column]) => `${name}: ${column}`);
  const mapping = [...columns, `${key}: { value: ${JSON.stringify(value)} }`].join(', ');
  const options = rule.options ?? base.options;
  return `${HEAD}job: ${kind}\nmapping: { ${mapping} }\n${options === undefined ? '' : `options: ${options}\n`}`;
}

async function load(kind: string, key: string, value: string, rule: Base) {
  const file = dir.write(
    `${kind}-${key}-${Buffer.from(value).toString('hex')}.yaml`,
    jobFile(kind, key, value, rule),
  );
  const error = await loadJobFile(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { file, error };
}

const cases = Object.entries(KEYS).flatMap(([kind, { keys }]) =>
  Object.entries(keys).map(([key, rule]) => ({ kind, key, rule })),
);

describe('mapping constants that no row can pass, refused when the job file is loaded', () => {
  it('knows every mapping key of every kind: a constant each row would refuse, or why none is', () => {
    const known = Object.fromEntries(
      Object.entries(KEYS).map(([kind, { keys }]) => [kind, Object.keys(keys)]),
    );
    const kinds = Object.fromEntries(JOB_KINDS.map((kind) => [kind.name, [...kind.mappingFields]]));
    expect(known).toEqual(kinds);
  });

  for (const { kind, key, rule } of cases) {
    if ('free' in rule) {
      it(`loads a ${kind} job with a constant ${key} (${rule.free})`, async () => {
        const { error } = await load(kind, key, 'Karlsruhe 1', rule);
        expect(error).toBeUndefined();
      });
      continue;
    }
    it(`refuses a ${kind} job whose constant ${key} is ${rule.value}, naming the key, what was expected and the value`, async () => {
      const { file, error } = await load(kind, key, rule.value, rule);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).message).toBe(`${file}: mapping.${key}: ${rule.message}`);
      expect((error as ConfigError).context).toMatchObject({
        file,
        path: `mapping.${key}`,
        received: rule.value,
      });
    });
  }

  it('refuses an empty constant of any key of any kind: every row would read it as no value at all', async () => {
    for (const { kind, key, rule } of cases) {
      const { file, error } = await load(kind, key, ' ', rule);
      expect(error, `${kind} ${key}`).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).message).toBe(
        `${file}: mapping.${key}: expected a value, got an empty constant, which every row would read as no ${key} at all`,
      );
      expect((error as ConfigError).context).toMatchObject({ path: `mapping.${key}`, received: '" "' });
    }
  });
});

describe('mapping constants checked together, and beside the columns that decide about them', () => {
  async function loaded(body: string) {
    const file = dir.write(`together-${Buffer.from(body).toString('hex').slice(-40)}.yaml`, `${HEAD}${body}`);
    const error = await loadJobFile(file).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return { file, error: error as ConfigError | undefined };
  }

  it('refuses a constant west beyond a constant east whatever the rows hold between south and north', async () => {
    const { file, error } = await loaded(
      'job: address-search\nmapping: { west: { value: 9.5 }, south: s, east: { value: 8.4 }, north: n }\noptions: { branches: "1301" }\n',
    );
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toBe(
      `${file}: mapping.west: expected west to be less than east, got west 9.5 and east 8.4 (swapped?)`,
    );
    expect(error?.context).toMatchObject({ path: 'mapping.west', received: '9.5' });
  });

  it('refuses a geocode constant country that is no country, whatever the postcode column beside it holds', async () => {
    const { file, error } = await loaded(
      'job: geocode\nmapping: { zip: plz, city: ort, country: { value: GER } }\n',
    );
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toBe(
      `${file}: mapping.country: expected an ISO country code such as DE (or D, DEU), or a country's name in German or English; got "GER"`,
    );
    expect(error?.context).toMatchObject({ path: 'mapping.country', received: 'GER' });
  });

  it('refuses constant minutes and metres together, whatever grid column is beside them', async () => {
    const { error } = await loaded(
      'job: isochrone\nmapping: { minutes: { value: 10 }, metres: { value: 500 }, grid: g }\n',
    );
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.context).toMatchObject({ path: 'mapping.minutes', received: '10' });
  });

  it('loads a constant postcode that is no German one where a country column or a foreign country decides', async () => {
    const column = await loaded('job: geocode\nmapping: { zip: { value: A-1010 }, country: land }\n');
    expect(column.error).toBeUndefined();
    const foreign = await loaded(
      'job: geocode\nmapping: { zip: { value: A-1010 }, country: { value: AT } }\n',
    );
    expect(foreign.error).toBeUndefined();
    const german = await loaded(
      'job: geocode\nmapping: { zip: { value: A-1010 }, country: { value: DE } }\n',
    );
    expect(german.error?.context).toMatchObject({ path: 'mapping.zip', received: 'A-1010' });
  });

  it('refuses a lone constant coordinate beside a column in another format only when it is no number', async () => {
    const word = await loaded(
      'job: elevation\nmapping: { lon: x, lat: { value: abc } }\noptions: { coordFormat: MERCATOR }\n',
    );
    expect(word.error?.code).toBe('CONFIG_INVALID');
    expect(word.error?.context).toMatchObject({ path: 'mapping.lat', received: 'abc' });
    // A number: only the pair, with each row's column, can tell whether it is a place.
    const number = await loaded(
      'job: elevation\nmapping: { lon: x, lat: { value: "6000000" } }\noptions: { coordFormat: MERCATOR }\n',
    );
    expect(number.error).toBeUndefined();
  });

  it('does not send a constant with decimal commas to input.decimal, which constants do not follow', async () => {
    const file = dir.write(
      'via-commas.yaml',
      'input: { path: in.csv, decimal: "," }\noutput: out.csv\njob: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d, via: { value: "8,6 49,1" } }\n',
    );
    const error = (await loadJobFile(file).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as ConfigError | undefined;
    expect(error?.context).toMatchObject({ path: 'mapping.via', received: '8,6 49,1' });
    expect(error?.message).toContain('write it with decimal points (8.6,49.1)');
    expect(error?.message).toContain('a constant is read with a decimal point, whatever input.decimal says');
    expect(error?.message).not.toContain('set input.decimal');
  });

  it('loads constants that every row passes', async () => {
    for (const body of [
      'job: address-search\nmapping: { city: c, country: { value: Österreich } }\noptions: { branches: "1301" }\n',
      'job: identifier-lookup\nmapping: { id: { value: /AadklP/MvIhD9lUF7z+Xg== } }\n',
      'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d, via: { value: "8.4,49.0;8.5,49.1" }, time: { value: "2024-05-06T08:30:00+02:00" } }\n',
      'job: area-export\nmapping: { osmid: { value: r62422 } }\n',
      'job: customer-lookup\nmapping: { key: { value: K-4711 } }\n',
      'job: trip\nmapping: { trip: t, sequence: { value: 1 } }\n',
      'job: match\nmapping: { track: t, time: { value: 1700000000 } }\n',
    ]) {
      const { error } = await loaded(body);
      expect(error, body).toBeUndefined();
    }
  });
});
