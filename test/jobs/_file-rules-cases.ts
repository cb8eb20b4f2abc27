/**
 * Job files that break a rule across a kind's mapping and options, with the error each must give
 * when loaded: shared by the loader's tests (test/jobs/file-rules.test.ts) and the validate
 * command's (test/cli/validate.test.ts), so that both refuse the same files in the same words.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HEAD = 'input: in.csv\noutput: out.csv\n';

export interface BrokenRule {
  readonly title: string;
  /** The job file after HEAD. */
  readonly body: string;
  readonly path: string;
  /** The message after `<file>: <path>: `. */
  readonly message: string;
  readonly received: string;
}

export const BROKEN_RULES: readonly BrokenRule[] = [
  {
    title: 'a route without its origin',
    body: 'job: route\nmapping: {}\n',
    path: 'mapping.originLon',
    message:
      'expected a column for originLon (a route needs the coordinates of its origin and destination), got none',
    received: 'nothing',
  },
  {
    title: 'a route without the latitude of its destination',
    body: 'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c }\n',
    path: 'mapping.destinationLat',
    message:
      'expected a column for destinationLat (a route needs the coordinates of its origin and destination), got none',
    received: 'nothing',
  },
  {
    title: 'a route whose time would travel in routingparams.routingTimeMode',
    body: 'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d, time: t }\noptions: { timeParam: routingTimeMode }\n',
    path: 'options.timeParam',
    message:
      "expected a property of its own for the time, not one of routingparams' own (type, isoLocale, coordFormatOut, speedProfile, routingTimeMode, routingRoundTrip, timeInMinutes, distanceInMeters, isochroneGrid, channel), got routingTimeMode",
    received: 'routingTimeMode',
  },
  {
    title: 'a route naming where the time travels, without a time column',
    body: 'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d }\noptions: { timeParam: departureTime }\n',
    path: 'options.timeParam',
    message: "not used without mapping.time (it names where the row's time travels), got departureTime",
    received: 'departureTime',
  },
  {
    title: 'an elevation at a constant latitude no row can pass',
    body: 'job: elevation\nmapping: { lon: x, lat: { value: 200 } }\n',
    path: 'mapping.lat',
    message: 'expected a latitude from -90 to 90, got `200`',
    received: '200',
  },
  {
    title: 'an elevation at a constant latitude just out of range, beside a longitude column',
    body: 'job: elevation\nmapping: { lon: x, lat: { value: 91 } }\n',
    path: 'mapping.lat',
    // No swapped-axes hint: the longitude it would be swapped with is made up for the check.
    message: 'expected a latitude from -90 to 90, got `91`',
    received: '91',
  },
  {
    title: 'a route from a constant origin that is no number',
    body: 'job: route\nmapping: { originLon: { value: abc }, originLat: { value: 49 }, destinationLon: c, destinationLat: d }\n',
    path: 'mapping.originLon',
    message: 'expected a longitude in decimal degrees, got `abc`',
    received: 'abc',
  },
  {
    title: 'an isochrone with neither minutes nor metres',
    body: 'job: isochrone\nmapping: {}\n',
    path: 'mapping.minutes',
    message:
      'expected a column for minutes or metres (the time or the distance to reach from each point), got none of them',
    received: 'nothing',
  },
  {
    title: 'an isochrone whose constant minutes no row can pass',
    body: 'job: isochrone\nmapping: { minutes: { value: 75 } }\n',
    path: 'mapping.minutes',
    message: "expected more than 0 and at most 60 minutes (the service's limit), got 75",
    received: '75',
  },
  {
    title: 'an isochrone with constant minutes and metres',
    body: 'job: isochrone\nmapping: { minutes: { value: 10 }, metres: { value: 500 } }\n',
    path: 'mapping.minutes',
    message: 'give minutes or metres, not both (got 10 minutes and 500 m)',
    received: '10',
  },
  {
    title: 'an isochrone with a constant grid out of range',
    body: 'job: isochrone\nmapping: { minutes: { value: 10 }, grid: { value: 20 } }\n',
    path: 'mapping.grid',
    message: "expected a whole number from 35 to 150 (the service's limit), got 20",
    received: '20',
  },
  {
    title: 'an isochrone whose constant minutes no row can pass, beside a grid column',
    body: 'job: isochrone\nmapping: { minutes: { value: 75 }, grid: g }\n',
    path: 'mapping.minutes',
    message: "expected more than 0 and at most 60 minutes (the service's limit), got 75",
    received: '75',
  },
  {
    title: 'an isochrone whose constant grid no row can pass, beside a metres column',
    body: 'job: isochrone\nmapping: { metres: m, grid: { value: 20 } }\n',
    path: 'mapping.grid',
    message: "expected a whole number from 35 to 150 (the service's limit), got 20",
    received: '20',
  },
  {
    title: 'an isochrone whose constant minutes are not a number, beside a metres column',
    body: 'job: isochrone\nmapping: { minutes: { value: soon }, metres: m }\n',
    path: 'mapping.minutes',
    message: 'expected a number, got `soon`',
    received: 'soon',
  },
  {
    title: 'an address search whose constant country is no country',
    body: "job: address-search\nmapping: { zip: plz, country: { value: Narnia } }\noptions: { branches: '1301' }\n",
    path: 'mapping.country',
    message:
      'expected an ISO country code such as DE (or D, DEU), or a country\'s name in German or English; got "Narnia"',
    received: 'Narnia',
  },
  {
    title: 'a geocode job whose constant postcode is no German one',
    body: 'job: geocode\nmapping: { street: strasse, zip: { value: 7613 1 } }\n',
    path: 'mapping.zip',
    message: 'expected a 5-digit German postcode, got `7613 1`',
    received: '7613 1',
  },
  {
    title: 'a route step whose constant time no row can pass, named by its place among the steps',
    body: 'steps:\n  - job: elevation\n  - job: route\n    mapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d, time: { value: tomorrow } }\n',
    path: 'steps[1].mapping.time',
    message: 'expected an ISO 8601 date-time such as 2024-05-06T08:30:00+02:00, got `tomorrow`',
    received: 'tomorrow',
  },
  {
    title: 'a trip without the trip column',
    body: 'job: trip\nmapping: { sequence: seq }\n',
    path: 'mapping.trip',
    message: 'expected a column for trip (which trip each stop belongs to), got none',
    received: 'nothing',
  },
  {
    title: 'a match without the track column',
    body: 'job: match\nmapping: {}\n',
    path: 'mapping.track',
    message: 'expected a column for track (which track each fix belongs to), got none',
    received: 'nothing',
  },
  {
    title: 'a match overlap of more than half of maxPoints',
    body: 'job: match\nmapping: { track: t }\noptions: { maxPoints: 100, overlap: 51 }\n',
    path: 'options.overlap',
    message: 'expected at most half of maxPoints (100), so at most 50, got 51',
    received: '51',
  },
  {
    title: 'a match overlap of more than half of the default maxPoints',
    body: 'job: match\nmapping: { track: t }\noptions: { overlap: 999 }\n',
    path: 'options.overlap',
    message: 'expected at most half of maxPoints (1000), so at most 500, got 999',
    received: '999',
  },
  {
    title: 'a match overlap larger than the window itself',
    body: 'job: match\nmapping: { track: t }\noptions: { maxPoints: 4, overlap: 10 }\n',
    path: 'options.overlap',
    message: 'expected at most half of maxPoints (4), so at most 2, got 10',
    received: '10',
  },
  {
    title: 'a customer lookup without the key column',
    body: 'job: customer-lookup\nmapping: {}\n',
    path: 'mapping.key',
    message: 'expected a column for key (the supplier keys to look up), got none',
    received: 'nothing',
  },
  {
    title: 'an autocomplete without the query column',
    body: 'job: autocomplete\nmapping: {}\n',
    path: 'mapping.query',
    message: 'expected a column for query (the free text to complete), got none',
    received: 'nothing',
  },
  {
    title: 'an autocomplete that wants and excludes one type',
    body: 'job: autocomplete\nmapping: { query: q }\noptions: { types: [CITY, STREET], excludeTypes: [STREET] }\n',
    path: 'options.excludeTypes',
    message: 'expected types that options.types does not name, got STREET in both',
    received: 'STREET',
  },
  {
    title: 'a matrix whose destinations share one constant id',
    body: 'job: matrix\nmapping: { lon: x, lat: y }\noptions:\n  destinations: { path: d.csv, mapping: { id: { value: HQ } } }\n',
    path: 'options.destinations.mapping.id',
    message:
      'expected a column naming each destination, got the constant "HQ", which every destination would have',
    received: 'HQ',
  },
  {
    title: 'an identifier lookup without the id column',
    body: 'job: identifier-lookup\nmapping: {}\n',
    path: 'mapping.id',
    message: 'expected a column for id (the YMIDs to look up), got none',
    received: 'nothing',
  },
  {
    title: 'a geocode job with neither postcode, city nor single slot',
    body: 'job: geocode\nmapping: { street: strasse, country: { value: DE } }\n',
    path: 'mapping.zip',
    message:
      'expected a column for zip, city or singleSlot (each address needs a postcode, a city or a single-slot address), got none of them',
    received: 'nothing',
  },
  {
    title: 'a geocode job without a mapping block',
    body: 'job: geocode\n',
    path: 'mapping.zip',
    message:
      'expected a column for zip, city or singleSlot (each address needs a postcode, a city or a single-slot address), got none of them',
    received: 'nothing',
  },
  {
    title: 'a step without the mapping block its kind requires, named by its place among the steps',
    body: 'steps:\n  - job: elevation\n  - job: trip\n',
    path: 'steps[1].mapping.trip',
    message: 'expected a column for trip (which trip each stop belongs to), got none',
    received: 'nothing',
  },
  {
    title: 'an area export step without a mapping block',
    body: 'steps:\n  - job: area-export\n',
    path: 'steps[0].mapping',
    message: 'expected the keys of one form (osmid: osmid; rectangle: west, south, east, north), got none',
    received: 'nothing',
  },
  {
    title: 'an area export of rectangles without a level',
    body: 'job: area-export\nmapping: { west: w, south: s, east: e, north: n }\n',
    path: 'options.level',
    message:
      'expected the administrative level of the areas a rectangle meets (Germany: 2, 4 or 6), got none',
    received: 'nothing',
  },
  {
    title: 'an area export of osm ids with a level',
    body: 'job: area-export\nmapping: { osmid: id }\noptions: { level: 6 }\n',
    path: 'options.level',
    message: 'not used with osm ids (each id names its own level), got 6',
    received: '6',
  },
  {
    title: 'an area export of rectangles with a batch size, which only osm ids use',
    body: 'job: area-export\nmapping: { west: w, south: s, east: e, north: n }\noptions: { level: 6, batchSize: 10 }\n',
    path: 'options.batchSize',
    message:
      'not used with rectangles (each rectangle is one request; only osm ids travel in batches), got 10',
    received: '10',
  },
  {
    title: 'a boundaries job without the spatial index, with a batch size',
    body: 'job: boundaries\noptions: { spatialIndex: false, batchSize: 50 }\n',
    path: 'options.batchSize',
    message:
      'not used with spatialIndex: false (each row and level is one GET; points travel in batches only with the spatial index), got 50',
    received: '50',
  },
  {
    title: 'a boundaries step without the spatial index, with a linger time',
    body: 'steps:\n  - job: boundaries\n    options: { spatialIndex: false, lingerMs: 10 }\n',
    path: 'steps[0].options.lingerMs',
    message:
      'not used with spatialIndex: false (each row and level is one GET; points travel in batches only with the spatial index), got 10',
    received: '10',
  },
  {
    title: 'an address search without options',
    body: 'job: address-search\n',
    path: 'options.branches',
    message:
      'expected the category codes to search, such as "1301" (`a|b`: either, `a&b`: both) (required), got none',
    received: 'nothing',
  },
  {
    title: 'an address-search step without options',
    body: 'steps:\n  - job: address-search\n',
    path: 'steps[0].options.branches',
    message:
      'expected the category codes to search, such as "1301" (`a|b`: either, `a&b`: both) (required), got none',
    received: 'nothing',
  },
  {
    title: 'an address search of the address form with neither postcode, city nor location',
    body: "job: address-search\noptions: { branches: '1201', form: address }\n",
    path: 'mapping.zip',
    message:
      'expected a column for zip, city or location (each address search needs a postcode, a city or a location), got none of them',
    received: 'nothing',
  },
  {
    title: 'a step breaking a rule, named by its place among the steps',
    body: 'steps:\n  - job: elevation\n  - job: match\n    mapping: { track: t }\n    options: { maxPoints: 100, overlap: 51 }\n',
    path: 'steps[1].options.overlap',
    message: 'expected at most half of maxPoints (100), so at most 50, got 51',
    received: '51',
  },
];

/** Files that keep the same rules, just inside their limits: they load. */
export const KEPT_RULES: readonly string[] = [
  'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d }\n',
  'job: route\nmapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d, time: t }\noptions: { timeParam: departureTime }\n',
  'job: isochrone\nmapping: { metres: { value: 500 } }\n',
  // A constant beside a column: only the rows can tell whether both are given.
  'job: isochrone\nmapping: { minutes: { value: 15 }, metres: m }\n',
  'job: isochrone\nmapping: { minutes: { value: 15 }, grid: g }\n',
  'job: trip\nmapping: { trip: t }\n',
  'job: match\nmapping: { track: t }\noptions: { maxPoints: 100, overlap: 50 }\n',
  'job: match\nmapping: { track: t }\noptions: { maxPoints: 4 }\n',
  'job: customer-lookup\nmapping: { key: k }\n',
  'job: autocomplete\nmapping: { query: q }\n',
  'job: identifier-lookup\nmapping: { id: ymid }\n',
  'job: geocode\nmapping: { singleSlot: address }\n',
  'job: area-export\nmapping: { osmid: id }\n',
  'job: area-export\nmapping: { osmid: id }\noptions: { batchSize: 10, lingerMs: 0 }\n',
  'job: boundaries\noptions: { spatialIndex: false }\n',
  'job: boundaries\noptions: { batchSize: 50, lingerMs: 10 }\n',
  'job: address-search\noptions: { branches: "1301" }\n',
];

/** Two steps that would both write `cust_company` (the sweep's p4.yaml). */
export const CLASHING_STEPS = `${HEAD}steps:
  - job: customer-lookup
    mapping: { key: supplier_key }
    options: { fields: [ymid, company] }
  - job: identifier-lookup
    mapping: { id: cust_ymid }
    options: { prefix: cust_, fields: [company] }
`;

/** A directory of job files, removed by `remove`. */
export function jobDir(): { write(name: string, text: string): string; root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'geobatch-rules-'));
  mkdirSync(join(root, 'jobs'));
  return {
    root,
    write(name, text) {
      const file = join(root, 'jobs', name);
      writeFileSync(file, text);
      return file;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
