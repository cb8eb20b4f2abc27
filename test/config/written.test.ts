import { describe, expect, it, vi } from 'vitest';
import { earlierFingerprintsOf, fingerprintOf, parseJobFile } from '../../src/config/load.js';
import { configError } from '../fixtures/config-error.js';

function load(text: string) {
  return parseJobFile(text, '/jobs/x.yaml', {}, 'jobs/x.yaml');
}

const LOOKUP = 'job: customer-lookup\ninput: s.csv\noutput: o.csv\n';
const GEOCODE = 'job: geocode\ninput: a.csv\noutput: b.csv\n';

/** The constant `key` of the kind's mapping, `more` the mapping's other lines. */
const constant = (text: string, kind = LOOKUP, key = 'key', more = '') => {
  const source = load(`${kind}mapping:\n  ${key}: { value: ${text} }\n${more}`).steps[0]?.mapping[key];
  return source !== undefined && 'value' in source ? source.value : undefined;
};

describe('numbers written where the job file means text', () => {
  it('keeps a constant YAML reads as a number as the text the file writes', () => {
    for (const written of ['010670', '007', '+49', '1.10', '.5', '1e3', '1.0E+3', '-0', '12_000', '10670'])
      expect(constant(written), written).toBe(written);
    expect(constant('"010670"')).toBe('010670');
    // JSON is read the same way, and an alias as its anchor's text.
    const json = load(
      '{"job":"customer-lookup","input":"s.csv","output":"o.csv","mapping":{"key":{"value":0042}}}',
    );
    expect(json.steps[0]?.mapping.key).toEqual({ value: '0042' });
    const alias = load(
      `${GEOCODE}mapping:\n  city: city\n  zip: { value: &z 01067 }\n  houseNo: { value: *z }\n`,
    );
    expect(alias.steps[0]?.mapping).toMatchObject({ zip: { value: '01067' }, houseNo: { value: '01067' } });
  });

  it('refuses a German postcode with a leading zero for the digits it has, not for 10670', () => {
    const error = configError(() =>
      load(`${GEOCODE}mapping:\n  city: city\n  zip: { value: 010670 }\n  country: { value: DE }\n`),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path: 'mapping.zip', received: '010670' });
    expect(error.message).toContain('expected a 5-digit German postcode, got `010670`');
    expect(constant('01067', GEOCODE, 'zip', '  city: city\n')).toBe('01067');
  });

  it("keeps the text in a step's mapping and in a matrix destinations file's", () => {
    const steps = load(
      'input: s.csv\noutput: o.csv\nsteps:\n  - job: geocode\n    name: 007\n    mapping: { city: c, zip: { value: 01067 } }\n',
    );
    expect(steps.steps[0]?.name).toBe('007');
    expect(steps.steps[0]?.mapping.zip).toEqual({ value: '01067' });
    const matrix = load(
      'job: matrix\ninput: a.csv\noutput: b.csv\nmapping: { lon: x, lat: y }\noptions:\n  destinations:\n    path: d.csv\n    mapping: { lon: { value: 13.40 }, lat: { value: +52.50 } }\n',
    );
    const options = matrix.steps[0]?.options as { destinations?: { mapping: unknown } } | undefined;
    expect(options?.destinations?.mapping).toEqual({ lon: { value: '13.40' }, lat: { value: '+52.50' } });
  });

  it('refuses a constant written as a number in hex, octal or .inf, which as text is not the number YAML read', () => {
    for (const [written, read, hint] of [
      ['0x1F', 'the number 31', 'write "0x1F" for the text, or write the number as 31'],
      ['0o17', 'the number 15', 'write "0o17" for the text, or write the number as 15'],
      ['.inf', 'Infinity, no number a field takes', 'write ".inf" for the text'],
    ] as const) {
      const error = configError(() => load(`${LOOKUP}mapping:\n  key: { value: ${written} }\n`));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/x.yaml: mapping.key.value: ${written} is read by YAML as ${read}, not as the text ${written}; quote it`,
      );
      expect(error.context).toMatchObject({
        file: 'jobs/x.yaml',
        path: 'mapping.key.value',
        received: written,
        hint,
      });
    }
    expect(constant('"0x1F"')).toBe('0x1F');
  });

  it('says how to write a constant given without `value:` in the digits the file writes', () => {
    const error = configError(() => load(`${GEOCODE}mapping:\n  city: city\n  zip: 01067\n`));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      'jobs/x.yaml: mapping.zip: expected a column name, or a constant written { value: 01067 }, got 01067',
    );
    expect(error.context).toMatchObject({ path: 'mapping.zip', received: '01067' });
  });

  it('keeps the text of a text option or key written as a number', () => {
    const search = load(
      'job: address-search\ninput: a.csv\noutput: b.csv\ndescription: 1.10\nservice: { channel: 0042 }\nmapping: { lon: x, lat: y }\noptions: { branches: 0101, prefix: 007 }\n',
    );
    expect(search.steps[0]?.options).toMatchObject({ branches: '0101', prefix: '007' });
    expect(search.document.description).toBe('1.10');
    expect(search.service.channel).toBe('0042');
  });

  it('still reads numbers where the job file means numbers', () => {
    const search = load(
      'job: address-search\ninput: a.csv\noutput: b.csv\nmapping: { lon: { value: 13.40 }, lat: { value: +52.50 } }\noptions: { branches: "1", radiusMeters: 0100, pageSize: 1e1 }\nrun: { window: 0100, checkpointSeconds: .5 }\n',
    );
    expect(search.steps[0]?.options).toMatchObject({ radiusMeters: 100, pageSize: 10 });
    expect(search.run).toEqual({ window: 100, checkpointSeconds: 0.5 });
    // A constant point is read as a number from its text, and refused out of range as before.
    const error = configError(() =>
      load(
        'job: reverse-geocode\ninput: a.csv\noutput: b.csv\nmapping: { lon: { value: 13.40 }, lat: { value: 091.0 } }\n',
      ),
    );
    expect(error.context.path).toBe('mapping.lat');
    expect(error.context.received).toBe('091.0');
    const isochrone = 'job: isochrone\ninput: a.csv\noutput: b.csv\n';
    expect(constant('1.5e1', isochrone, 'minutes', '  lon: x\n  lat: y\n')).toBe('1.5e1');
  });
});

describe('a credential written as a number', () => {
  it('is refused as the same credential in quotes is, by the text the file writes', () => {
    const env = { GEOBATCH_PARTNER_KEY: '0987654321' };
    for (const written of ['0987654321', '"0987654321"']) {
      const text = `${GEOCODE}mapping:\n  city: city\n  houseNo: { value: ${written} }\n`;
      const error = configError(() => parseJobFile(text, '/jobs/x.yaml', env, 'jobs/x.yaml'));
      expect(error.code, written).toBe('CONFIG_INVALID');
      expect(error.context, written).toMatchObject({ path: 'mapping.houseNo.value' });
      expect(error.message).toContain('holds the value of GEOBATCH_PARTNER_KEY, a credential, written out');
      expect(error.message).not.toContain('987654321');
    }
  });
});

describe('a constant merged with a YAML 1.1 merge key', () => {
  it('keeps the text written in the anchor, as the anchor itself does, and a key of its own wins', () => {
    const text = [
      '%YAML 1.1',
      '---',
      'input: a.csv',
      'output: b.csv',
      'steps:',
      '  - job: geocode',
      '    mapping: &m { street: street, city: city, houseNo: { value: 010 }, zip: { value: 01067 } }',
      '  - job: geocode',
      '    name: again',
      '    mapping: { <<: *m, zip: { value: 04109 } }',
      '',
    ].join('\n');
    const [first, second] = load(text).steps;
    expect(first?.mapping).toMatchObject({ houseNo: { value: '010' }, zip: { value: '01067' } });
    expect(second?.mapping).toMatchObject({ houseNo: { value: '010' }, zip: { value: '04109' } });
  });
});

describe('a column named by a number', () => {
  it('names the column as the file writes it, as a header writes it', () => {
    const config = load(
      `${GEOCODE}mapping:\n  city: city\n  zip: { column: 01067 }\n  houseNo: { column: 12 }\n`,
    );
    expect(config.steps[0]?.mapping).toMatchObject({ zip: { column: '01067' }, houseNo: { column: '12' } });
  });
});

describe('the fingerprint of a checkpoint written before constants kept their text', () => {
  // Each `before` is what c287dbb^'s fingerprintOf gave the same text, parsed at /jobs/x.yaml: a
  // checkpoint of that version holds it (a step's constant "52.5", a destinations file's 52.5).
  it('is known beside the current one, for a step mapping and a destinations mapping', () => {
    const cases = [
      [
        `${GEOCODE}mapping:\n  city: city\n  zip: { value: 01067 }\n  houseNo: { value: 52.50 }\n  country: { value: DE }\n`,
        '3a4a17b5cca63976',
      ],
      [
        'input: a.csv\noutput: b.csv\nsteps:\n  - job: geocode\n    mapping: { city: city, zip: { value: 01067 } }\n  - job: matrix\n    mapping: { lon: geo_lon, lat: geo_lat }\n    options:\n      destinations:\n        path: d.csv\n        mapping: { lon: { value: 13.40 }, lat: { value: 52.50 } }\n',
        '2d289e75d4d37041',
      ],
    ] as const;
    for (const [text, before] of cases) {
      const config = load(text);
      expect(fingerprintOf(config)).not.toBe(before);
      expect(earlierFingerprintsOf(config)).toEqual([before]);
    }
  });

  it('adds none where the file writes no constant as a number', () => {
    const config = load(
      `${GEOCODE}mapping:\n  city: city\n  zip: { value: "01067" }\n  houseNo: { value: 12a }\n`,
    );
    expect(earlierFingerprintsOf(config)).toEqual([]);
    // A constant whose text is the number's own (12) fingerprints as it did.
    expect(
      earlierFingerprintsOf(load(`${GEOCODE}mapping:\n  city: city\n  houseNo: { value: 12 }\n`)),
    ).toEqual([]);
  });
});

describe('numbers quoted back in messages', () => {
  it('names a key YAML reads as a number as the file writes it', () => {
    for (const [text, at, key] of [
      [`${GEOCODE}mapping:\n  city: c\n  01067: plz\n`, 'mapping', '01067'],
      [`${GEOCODE}mapping:\n  city: c\n  zip: { 01067: plz }\n`, 'mapping.zip', '01067'],
      [`${GEOCODE}mapping: { city: c }\nrun: { 010: 1 }\n`, 'run', '010'],
      [`${GEOCODE}mapping: { city: c }\noptions: { 1.50: x }\n`, 'options', '1.50'],
    ] as const) {
      const error = configError(() => load(text));
      expect(error.code, text).toBe('CONFIG_INVALID');
      expect(error.message, text).toMatch(
        new RegExp(`^jobs/x\\.yaml: ${at.replace('.', '\\.')}: unknown key \`${key}\``),
      );
      expect(error.context, text).toMatchObject({ file: 'jobs/x.yaml', path: at });
    }
  });

  it('names a key YAML reads as null (`null:`, `~:`) as the file writes it, not as ``', () => {
    for (const [text, at, key] of [
      [`${GEOCODE}mapping:\n  city: c\n  null: plz\n`, 'mapping', 'null'],
      [`${GEOCODE}mapping:\n  city: c\n  ~: plz\n`, 'mapping', '~'],
      [`${GEOCODE}mapping: { city: c }\nNULL:\n  x: 1\n`, '(top level)', 'NULL'],
    ] as const) {
      const error = configError(() => load(text));
      expect(error.code, text).toBe('CONFIG_INVALID');
      expect(error.message, text).toContain(`${at}: unknown key \`${key}\`;`);
    }
    // A path through such a key is written as the file writes it too.
    const nested = configError(() => load(`${GEOCODE}mapping:\n  city: c\n  zip: { ~: plz }\n`));
    expect(nested.context).toMatchObject({ path: 'mapping.zip' });
    expect(nested.message).toContain('unknown key `~`');
  });

  it('names a key that is a list once, without a Node warning printed below the message', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const error = configError(() => load(`${GEOCODE}mapping:\n  city: c\n  ? [a, b]\n  : plz\n`));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('mapping: unknown key `[ a, b ]`');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('names a path through such a key, and a value refused, as the file writes them', () => {
    const hex = configError(() => load(`${LOOKUP}mapping:\n  0123: { value: 0x1F }\n`));
    expect(hex.code).toBe('CONFIG_INVALID');
    expect(hex.context).toMatchObject({ path: 'mapping.0123.value', received: '0x1F' });
    expect(hex.message).toMatch(/^jobs\/x\.yaml: mapping\.0123\.value: 0x1F is read by YAML/);
    const batch = configError(() =>
      load(
        'job: elevation\ninput: a.csv\noutput: b.csv\nmapping: { lon: x, lat: y }\noptions: { batchSize: 1.50 }\n',
      ),
    );
    expect(batch.code).toBe('CONFIG_INVALID');
    expect(batch.message).toBe('jobs/x.yaml: options.batchSize: expected a whole number, got 1.50');
    expect(batch.context).toMatchObject({ path: 'options.batchSize' });
    const page = configError(() =>
      load(
        'job: address-search\ninput: a.csv\noutput: b.csv\nmapping: { lon: x, lat: y }\noptions: { branches: "1", pageSize: 0200 }\n',
      ),
    );
    expect(page.message).toMatch(/^jobs\/x\.yaml: options\.pageSize: expected at most \d+, got 0200$/);
  });
});
