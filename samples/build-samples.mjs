#!/usr/bin/env node
// Rebuilds the sample inputs from the open data committed in this repository:
//   npm run build && node samples/build-samples.mjs
// Deterministic: the same data gives byte-identical samples. Supplier keys and geocodable
// addresses are taken from the built emulator through its public HTTP interface, so that the
// samples hold keys and addresses the emulator really knows. Bad rows are planted on purpose,
// each one a mistake real files contain; samples/README.md lists them and what each job does.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DUPLICATE_CUSTOMER_IDS, startEmulator } from '../dist/emulator/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const data = join(here, '..', 'src', 'emulator', 'data');

function parseCsv(text) {
  const lines = text.trim().split(/\r?\n/);
  const header = lines[0].split(',');
  return lines.slice(1).map((line) => {
    const cells = [];
    let cell = '';
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        cells.push(cell);
        cell = '';
      } else cell += ch;
    }
    cells.push(cell);
    return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
  });
}

function csvLine(values) {
  return values.map((v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v))).join(',');
}

function writeCsv(name, header, rows) {
  writeFileSync(join(here, name), `${[csvLine(header), ...rows.map(csvLine)].join('\n')}\n`);
}

/** Every n-th element, starting at `offset`, up to `count`. */
function stride(list, count, offset = 0) {
  const step = Math.floor(list.length / count);
  return Array.from({ length: count }, (_, i) => list[(offset + i * step) % list.length]);
}

const places = parseCsv(readFileSync(join(data, 'de_places_geonames_cities1000.csv'), 'utf8')).sort(
  (a, b) => Number(a.geonameid) - Number(b.geonameid),
);

// places.csv: elevation and boundaries over 2,000 real places, lat before lon as many exports do.
const placeRows = stride(places, 2000).map((p) => [p.geonameid, p.name, p.state_iso3166_2, p.latitude, p.longitude]);
const planted = [
  [40, ['900001', 'Karlsruhe (lat/lon swapped)', 'DE-BW', '8.40444', '49.00937']],
  [410, ['900002', 'Typo in latitude', 'DE-BY', '95.2', '11.5']],
  [777, ['900003', 'Missing longitude', 'DE-NW', '51.2', '']],
  [1200, ['900004', 'Not a number', 'DE-HE', 'n/a', '8.68']],
  [1650, ['900005', 'Wien (outside Germany)', 'AT-9', '48.20849', '16.37208']],
];
for (const [at, planted_row] of planted) placeRows.splice(at, 0, planted_row);
placeRows.splice(1900, 0, placeRows[100]); // the same place twice: one request serves both
writeCsv('places.csv', ['place_id', 'name', 'state', 'lat', 'lon'], placeRows);

// places.geojson: boundaries from GeoJSON in, GeoJSON out (600 other places).
const features = stride(places, 600, 3).map((p) => ({
  type: 'Feature',
  properties: { place_id: p.geonameid, name: p.name },
  geometry: { type: 'Point', coordinates: [Number(p.longitude), Number(p.latitude)] },
}));
features.splice(50, 0, { type: 'Feature', properties: { place_id: '900011', name: 'No geometry' }, geometry: null });
features.splice(300, 0, {
  type: 'Feature',
  properties: { place_id: '900012', name: 'Karlsruhe (lat/lon swapped)' },
  geometry: { type: 'Point', coordinates: [49.00937, 8.40444] },
});
features.splice(450, 0, { type: 'Fature', properties: { place_id: '900013', name: 'Misspelt type' }, geometry: null });
const geojsonLines = features.map((f) => JSON.stringify(f)).join(',\n');
writeFileSync(join(here, 'places.geojson'), `{"type":"FeatureCollection","features":[\n${geojsonLines}\n]}\n`);

// gps-fixes.csv: reverse geocoding of 150 positions a few hundred metres off real places.
const fixes = stride(places, 150, 7).map((p, i) => [
  `fix-${String(i + 1).padStart(3, '0')}`,
  (Number(p.longitude) + ((i % 7) - 3) * 0.002).toFixed(5),
  (Number(p.latitude) + ((i % 5) - 2) * 0.002).toFixed(5),
]);
fixes.splice(60, 0, ['fix-swapped', '49.00937', '8.40444']);
fixes.splice(120, 0, ['fix-north-sea', '6.20000', '54.80000']);
writeCsv('gps-fixes.csv', ['fix_id', 'lon', 'lat'], fixes);

// depots.csv x stores.csv: the matrix job's origins and destinations.
const depotNames = ['Berlin', 'Hamburg', 'Munich', 'Köln', 'Frankfurt am Main', 'Leipzig'];
const depots = depotNames.map((name, i) => {
  const p = places.find((x) => x.name === name);
  return [`DEPOT-${i + 1}`, name, p.latitude, p.longitude];
});
depots.splice(3, 0, ['DEPOT-X', 'Depot without coordinates', '', '']);
writeCsv('depots.csv', ['depot_id', 'name', 'lat', 'lon'], depots);
const stores = stride(places, 250, 11).map((p, i) => [`S${String(i + 1).padStart(4, '0')}`, p.name, p.latitude, p.longitude]);
writeCsv('stores.csv', ['store_id', 'name', 'lat', 'lon'], stores);

// sites.csv: where the address-search job looks for the nearest organisations.
const siteNames = ['Berlin', 'Hamburg', 'Munich', 'Köln', 'Stuttgart', 'Dresden', 'Karlsruhe', 'Hannover', 'Nürnberg', 'Bremen'];
const sites = siteNames.map((name, i) => {
  const p = places.find((x) => x.name === name);
  return [`SITE-${i + 1}`, name, p.latitude, p.longitude];
});
sites.splice(5, 0, ['SITE-BAD', 'Latitude typo', '5.2.3', '9.99']);
writeCsv('sites.csv', ['site_id', 'name', 'lat', 'lon'], sites);

// --- Routing samples (route, isochrone, trip, match): from the places alone, no emulator needed.

/** A seeded generator (mulberry32): the same samples on every machine. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const place = (name) => places.find((x) => x.name === name);
const lonlat = (p) => [Number(p.longitude), Number(p.latitude)];
const planar = (a, b) => Math.hypot((a[0] - b[0]) * Math.cos((a[1] * Math.PI) / 180), a[1] - b[1]);

// routes.csv: a courier's jobs, from one place to another, some through a via point, with a departure time.
const routePlaces = stride(places, 240, 13);
const routeRows = [];
for (let i = 0; i < 120; i++) {
  const from = routePlaces[(2 * i) % routePlaces.length];
  const to = routePlaces[(2 * i + 1) % routePlaces.length];
  const via = i % 4 === 0 ? routePlaces[(2 * i + 7) % routePlaces.length] : undefined;
  const hour = String(6 + (i % 12)).padStart(2, '0');
  routeRows.push([
    `R${String(i + 1).padStart(4, '0')}`,
    from.name,
    from.latitude,
    from.longitude,
    to.name,
    to.latitude,
    to.longitude,
    via === undefined ? '' : `${via.longitude},${via.latitude}`,
    `2024-05-06T${hour}:00:00+02:00`,
  ]);
}
routeRows.splice(30, 0, ['R9001', 'Berlin', '52.52437', '13.41053', 'Nowhere', '', '', '', '2024-05-06T09:00:00+02:00']); // destination not geocoded
routeRows.splice(60, 0, ['R9002', 'Hamburg', '53.55073', '9.99302', 'Bremen', '53.07516', '8.80777', '9.5;53.3', '2024-05-06T10:00:00+02:00']); // half a via point
routeRows.splice(90, 0, ['R9003', 'Köln', '50.93333', '6.95', 'Bonn', '50.73438', '7.09549', '', 'tomorrow morning']); // not a time
routeRows.splice(100, 0, ['R9004', ...routeRows[10].slice(1)]); // the same job booked twice
writeCsv('routes.csv', ['job_id', 'from_name', 'from_lat', 'from_lon', 'to_name', 'to_lat', 'to_lon', 'via', 'depart'], routeRows);

// isochrones.csv: what sites reach in a drive time or a distance.
const isoRows = stride(places, 40, 17).map((p, i) => [
  `I${String(i + 1).padStart(3, '0')}`,
  p.name,
  p.latitude,
  p.longitude,
  i % 3 === 2 ? '' : String([10, 15, 20, 30, 45, 60][i % 6]),
  i % 3 === 2 ? String([5000, 12500, 25000][Math.floor(i / 3) % 3]) : '',
  i % 5 === 0 ? String([35, 80, 150][Math.floor(i / 5) % 3]) : '',
]);
isoRows.splice(8, 0, ['I901', 'Ninety minutes', '49.00937', '8.40444', '90', '', '']); // beyond the service's 60 minutes
isoRows.splice(16, 0, ['I902', 'No reach', '48.13743', '11.57549', '', '', '']); // neither minutes nor metres
isoRows.splice(24, 0, ['I903', 'Coarse grid', '50.93333', '6.95', '15', '', '20']); // grid below 35
isoRows.splice(32, 0, ['I904', 'Both given', '53.55073', '9.99302', '15', '10000', '']); // minutes and metres
isoRows.splice(36, 0, ['I905', 'Too far', '51.33962', '12.37129', '', '150000', '']); // the service refuses 150 km
isoRows.splice(38, 0, isoRows[3].map((v, j) => (j === 0 ? 'I906' : v))); // the same site twice
writeCsv('isochrones.csv', ['site_id', 'name', 'lat', 'lon', 'minutes', 'metres', 'grid'], isoRows);

// trips.csv: delivery tours, each a depot and the places nearest it, stops numbered as planned.
const tripRandom = seeded(14);
const hubs = stride(places, 24, 29);
const tripRows = [];
for (const [t, hub] of hubs.entries()) {
  const id = `T${String(t + 1).padStart(2, '0')}`;
  const size = t === 5 ? 1 : 3 + Math.floor(tripRandom() * 10);
  const near = places
    .filter((p) => p !== hub)
    .map((p) => [planar(lonlat(p), lonlat(hub)), p])
    .sort((a, b) => a[0] - b[0] || Number(a[1].geonameid) - Number(b[1].geonameid))
    .slice(0, size - 1)
    .map(([, p]) => p);
  // The planner's numbering is not the best order: the service finds that.
  for (let i = near.length - 1; i > 0; i--) {
    const j = Math.floor(tripRandom() * (i + 1));
    [near[i], near[j]] = [near[j], near[i]];
  }
  const stops = [hub, ...near];
  stops.forEach((p, i) => tripRows.push([id, String(i + 1), `${id}-${String(i + 1).padStart(2, '0')}`, p.name, p.latitude, p.longitude]));
}
const at = (stopId) => tripRows.findIndex((r) => r[2] === stopId);
tripRows[at('T03-03')][4] = ''; // a stop without coordinates
tripRows[at('T03-03')][5] = '';
tripRows[at('T09-02')][1] = ''; // a stop without its number
const strays = tripRows.filter((r) => r[0] === 'T11').slice(0, 2).map((r, i) => [r[0], String(20 + i), `T11-9${i}`, r[3], r[4], r[5]]);
tripRows.splice(at('T13-01') + 1, 0, ...strays); // two stops of T11 turn up again inside T13
writeCsv('trips.csv', ['trip_id', 'stop_seq', 'stop_id', 'name', 'lat', 'lon'], tripRows);

// tracks.csv: GPS fixes of vans driving between towns, every 10 s; one long enough for two requests.
const trackRandom = seeded(7);
const legs = [
  ['V1', 'Hamburg', 'Lüneburg', 160],
  ['V2', 'Köln', 'Bonn', 120],
  ['V3', 'Hannover', 'Braunschweig', 1200],
  ['V4', 'Nürnberg', 'Erlangen', 90],
  ['V5', 'Stuttgart', 'Esslingen', 70],
  ['V6', 'Emden', 'Norden', 60],
];
const trackRows = [];
const start = Date.UTC(2024, 4, 6, 6, 0, 0);
for (const [id, fromName, toName, count] of legs) {
  const a = lonlat(place(fromName));
  const b = lonlat(place(toName));
  for (let i = 0; i < count; i++) {
    const f = i / (count - 1);
    // V6 heads out over the Wadden Sea for its last fixes: no road there.
    const out = id === 'V6' && i >= count - 6 ? (i - count + 7) * 0.06 : 0;
    const lon = a[0] + (b[0] - a[0]) * f + (trackRandom() - 0.5) * 0.0008 - out;
    const lat = a[1] + (b[1] - a[1]) * f + (trackRandom() - 0.5) * 0.0008 + out;
    const time = new Date(start + i * 10_000).toISOString().replace('.000Z', 'Z');
    trackRows.push([id, time, lat.toFixed(5), lon.toFixed(5)]);
  }
}
const fix = (track, n) => trackRows.findIndex((r) => r[0] === track) + n;
trackRows[fix('V1', 40)][1] = 'n/a'; // a fix without a readable time
trackRows[fix('V2', 30)][1] = trackRows[fix('V2', 25)][1]; // the logger's clock jumped back
trackRows[fix('V4', 12)][2] = ''; // a fix without latitude
trackRows.splice(fix('V5', 0), 0, ...trackRows.filter((r) => r[0] === 'V2').slice(-2)); // V2's last fixes, exported again after V4
writeCsv('tracks.csv', ['track_id', 'time', 'lat', 'lon'], trackRows);

const emulator = await startEmulator({ preload: true });
const { urls, credentials } = emulator;

// suppliers.csv: supplier keys the address search knows, collected page by page over Germany.
const keys = [];
for (let page = 1; ; page++) {
  const query = `Branches=100&Lux=5.8&Luy=55.1&Rlx=15.1&Rly=47.2&Top=100&OrderBy=NONE&Page=${page}`;
  const answer = await (
    await fetch(`${urls.addressSearch}/ByBranchesAndRectangle?${query}`, {
      headers: { Authorization: credentials.basicHeader },
    })
  ).json();
  for (const item of answer.AddressItems) keys.push(item.BasicData.Identifiers.ProviderForeignKey);
  if (page >= answer.Paging.MaxPage) break;
}
const unique = [...new Set(keys)].sort().filter((k) => !DUPLICATE_CUSTOMER_IDS.includes(k));
const suppliers = stride(unique, 300).map((key, i) => [`C${String(i + 1).padStart(5, '0')}`, key]);
suppliers.splice(20, 0, ['C90001', DUPLICATE_CUSTOMER_IDS[0]]); // the supplier delivered this one twice
suppliers.splice(120, 0, ['C90002', 'GN9999999999']); // a key the supplier never issued
suppliers.splice(200, 0, ['C90003', '']); // key missing in the export
suppliers.splice(250, 0, ['C90004', suppliers[10][1]]); // same customer under two numbers
writeCsv('suppliers.csv', ['customer_no', 'supplier_key'], suppliers);

// community-centres.csv: real OSM addresses the emulator can place (it has postcodes and
// places, not streets), plus the mistakes address lists contain.
const centres = parseCsv(readFileSync(join(here, 'data', 'de_addresses_osm_community_centres.csv'), 'utf8'));
async function geocodes(row) {
  const body = {
    type: 'Feature',
    properties: {},
    geometry: { type: 'Point', coordinates: [0, 0] },
    crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } },
    searchparams: { geocodingType: 'GEOCODE', coordFormatOut: 'GEODECIMAL_POINT' },
    authentication: { channel: 'samples' },
    location: { country: 'DE', zip: row.plz, city: row.city, street: row.street, houseNo: row.housenumber },
  };
  const answer = await (
    await fetch(`${urls.geojson}/geocode?apiKey=${credentials.apiKey}`, { method: 'POST', body: JSON.stringify(body) })
  ).json();
  return answer.features.length > 0;
}
const chosen = [];
for (const row of stride(centres, 600, 5)) {
  if (chosen.length === 400) break;
  if (/^\d{5}$/.test(row.plz) && (await geocodes(row))) chosen.push(row);
}
const addressRows = chosen.map((r) => [r.osm_id, r.street, r.housenumber, r.plz, r.city]);
const dresden = chosen.find((r) => r.plz.startsWith('01'));
addressRows.splice(30, 0, ['900101', 'Marktplatz', '1', '', '']); // neither postcode nor city
addressRows.splice(90, 0, ['900102', dresden.street, dresden.housenumber, dresden.plz.slice(1), dresden.city]); // spreadsheet ate the 0
addressRows.splice(150, 0, ['900103', 'Hauptstraße', '12', '7613A', 'Karlsruhe']); // typo in postcode
addressRows.splice(210, 0, ['900104', 'Am Rathaus', '3', '99999', 'Nirgendwo']); // no such place
addressRows.splice(300, 0, addressRows[5]); // listed twice
writeCsv('community-centres.csv', ['osm_id', 'street', 'housenumber', 'plz', 'city'], addressRows);

// place-entries.csv: what people type into a "where" field of a web form, for the autocomplete job:
// postcodes with places, names in lower case or with ue/ae/oe for ü/ä/ö, postcodes alone. Only
// entries the emulator's autocomplete has a suggestion for are kept.
const token = await (await fetch(`${urls.token}/api_rst/api/autocompleteToken?apiKey=${credentials.apiKey}`)).json();
async function suggestions(text) {
  const answer = await fetch(urls.autocomplete, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: text, top: 1 }),
  });
  return (await answer.json()).geoEntities.length;
}
const transliterate = (name) => name.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/ß/g, 'ss');
const postalPlaces = parseCsv(readFileSync(join(data, 'de_postal_codes_geonames.csv'), 'utf8')).filter((r) => r.kind === 'place');
const typed = [];
for (const [i, p] of stride(postalPlaces, 170, 13).entries()) {
  if (typed.length === 150) break;
  const text = [`${p.plz} ${p.name}`, p.name.toLowerCase(), transliterate(p.name), p.name, p.plz][i % 5];
  if (!typed.some((t) => t[1] === text) && (await suggestions(text)) > 0) typed.push([`E${String(typed.length + 1).padStart(4, '0')}`, text]);
}
const entryFailures = { E9001: '', E9002: 'Karlsruhee', E9003: 'Paris, France' };
for (const text of Object.values(entryFailures)) if (text !== '' && (await suggestions(text)) > 0) throw new Error(`${text} has a suggestion`);
typed.splice(20, 0, ['E9001', entryFailures.E9001]); // left empty
typed.splice(60, 0, ['E9002', entryFailures.E9002]); // a typo: no place starts with it
typed.splice(100, 0, ['E9003', entryFailures.E9003]); // outside the service's countries
typed.splice(110, 0, ['E9004', typed[3][1].toUpperCase()]); // the same place in capitals: one request
typed.splice(130, 0, ['E9005', '  76131   Karlsruhe ']); // stray spaces
writeCsv('place-entries.csv', ['entry_id', 'typed'], typed);

// Address search records over all of Germany, page by page (as the suppliers above).
async function search(endpoint, query) {
  const items = [];
  for (let page = 1; ; page++) {
    const answer = await (
      await fetch(`${urls.addressSearch}/${endpoint}?${query}&Page=${page}`, { headers: { Authorization: credentials.basicHeader } })
    ).json();
    items.push(...answer.AddressItems);
    if (page >= answer.Paging.MaxPage) break;
  }
  return items;
}
const records = (await search('ByBranchesAndRectangle', 'Branches=100&Lux=5.8&Luy=55.1&Rlx=15.1&Rly=47.2&Top=100&OrderBy=NONE'))
  .map((item) => item.BasicData)
  .sort((a, b) => (a.Identifiers.YMID < b.Identifiers.YMID ? -1 : a.Identifiers.YMID > b.Identifiers.YMID ? 1 : 0));

// stored-records.csv: record identifiers (YMIDs) a CRM stored from earlier searches, some as the raw
// YMID, some as YMIDUrlEncoded, for the identifier-lookup job to refresh.
const stored = stride(records, 200, 3).map((r, i) => [
  `R${String(i + 1).padStart(4, '0')}`,
  i % 3 === 0 ? r.Identifiers.YMIDUrlEncoded : r.Identifiers.YMID,
  r.Address.CompanyName,
]);
const withPlus = records.find((r) => r.Identifiers.YMID.includes('+') && !stored.some((s) => s[1] === r.Identifiers.YMID));
const unknownYmid = 'AAAAAAAAAAAAAAAAAAAAAA==';
if (records.some((r) => r.Identifiers.YMID === unknownYmid)) throw new Error('the unknown YMID exists');
stored.splice(15, 0, ['R9001', unknownYmid, 'Deleted GmbH']); // the record is gone
stored.splice(70, 0, ['R9002', '', 'Never looked up']); // no id stored
stored.splice(120, 0, ['R9003', '#REF!', 'Broken spreadsheet cell']); // a spreadsheet error value
stored.splice(150, 0, ['R9004', withPlus.Identifiers.YMID.replace(/\+/g, ' '), withPlus.Address.CompanyName]); // + decoded as a space
stored.splice(180, 0, ['R9005', decodeURIComponent(stored[0][1]), stored[0][2]]); // the same record stored twice, once encoded
writeCsv('stored-records.csv', ['record_no', 'ymid', 'company'], stored);

// branch-offices.csv: real addresses in big cities, to search around (address-search, address form).
const bigCities = ['Berlin', 'Hamburg', 'München', 'Köln', 'Frankfurt am Main', 'Stuttgart', 'Düsseldorf', 'Leipzig', 'Dresden', 'Hannover', 'Nürnberg', 'Karlsruhe'];
const offices = [];
for (const city of bigCities) {
  const centre = centres.find((r) => r.city === city && /^\d{5}$/.test(r.plz) && r.street !== '');
  if (centre !== undefined && (await geocodes(centre))) offices.push([`OFF-${String(offices.length + 1).padStart(2, '0')}`, centre.street, centre.housenumber, centre.plz, centre.city]);
}
offices.splice(4, 0, ['OFF-X1', 'Bahnhofstraße', '1', '', '']); // neither postcode nor city
offices.splice(8, 0, ['OFF-X2', 'Am Rathaus', '3', '99999', 'Nirgendwo']); // no such place
writeCsv('branch-offices.csv', ['office_id', 'street', 'house_no', 'zip', 'city'], offices);

// sales-territories.csv: rectangles around cities (west, south, east, north in degrees), for the
// address-search job's rectangle form.
const territoryNames = ['Bremen', 'Mainz', 'Erfurt', 'Kiel', 'Magdeburg', 'Potsdam', 'Saarbrücken', 'Schwerin', 'Wiesbaden', 'Freiburg'];
const territories = territoryNames.map((name, i) => {
  const p = places.find((x) => x.name === name);
  const [lon, lat] = [Number(p.longitude), Number(p.latitude)];
  return [`T-${String(i + 1).padStart(2, '0')}`, name, (lon - 0.08).toFixed(4), (lat - 0.05).toFixed(4), (lon + 0.08).toFixed(4), (lat + 0.05).toFixed(4)];
});
territories.splice(3, 0, ['T-SWAPPED', 'West and east swapped', '11.60', '50.95', '11.40', '51.05']);
territories.splice(7, 0, ['T-OPEN', 'North missing', '9.90', '53.50', '10.10', '']);
writeCsv('sales-territories.csv', ['territory', 'name', 'west', 'south', 'east', 'north'], territories);

// areas.csv: OpenStreetMap ids of states and districts to export as polygons (area-export). The
// emulator's ids are synthetic (level x 10,000,000 + the official key); a real export uses OSM's.
async function areaIds(level) {
  const answer = await (
    await fetch(`${urls.area}/api/v2/Boundaries/rectangle?apiKey=${credentials.apiKey}`, {
      method: 'POST',
      body: JSON.stringify({ level, reduceGeometry: 1, boundingBox: { northEast: { latitude: 55.1, longitude: 15.1 }, southWest: { latitude: 47.2, longitude: 5.8 } } }),
    })
  ).json();
  return answer.features.map((f) => [f.properties.osmid, f.properties.name]);
}
const areaRows = [...stride(await areaIds(4), 4, 1), ...stride(await areaIds(6), 36, 5)].map(([id, name], i) => [
  `AREA-${String(i + 1).padStart(2, '0')}`,
  i % 10 === 9 ? `relation/${id}` : String(id),
  name,
]);
areaRows.splice(6, 0, ['AREA-X1', '999999999', 'An id the service does not have']);
areaRows.splice(12, 0, ['AREA-X2', '', 'Id missing']);
areaRows.splice(20, 0, ['AREA-X3', 'Karlsruhe', 'A name where the id belongs']);
areaRows.splice(30, 0, ['AREA-X4', `r${areaRows[8][1]}`, areaRows[8][2]]); // listed twice, as r<id>
writeCsv('areas.csv', ['area_ref', 'osmid', 'name'], areaRows);

// map-sheets.csv: map sheets of about 16 x 11 km as SUPERKONFORM rectangles (metres, the PTV
// Lambert projection of the service notes), whose districts area-export writes out.
const { fromWgs84 } = await import('../dist/client/index.js');
const sheetNames = ['Karlsruhe', 'Heidelberg', 'Würzburg', 'Göttingen', 'Trier', 'Rostock', 'Passau', 'Cottbus'];
const sheets = sheetNames.map((name, i) => {
  const p = places.find((x) => x.name === name);
  const [x, y] = fromWgs84([Number(p.longitude), Number(p.latitude)], 'SUPERKONFORM');
  return [`SHEET-${i + 1}`, name, Math.round(x - 8000), Math.round(y - 5500), Math.round(x + 8000), Math.round(y + 5500)];
});
const [seaX, seaY] = fromWgs84([6.2, 54.8], 'SUPERKONFORM').map(Math.round);
sheets.splice(2, 0, ['SHEET-SEA', 'North Sea', seaX - 8000, seaY - 5500, seaX + 8000, seaY + 5500]); // no district there: 0 areas
sheets.splice(5, 0, ['SHEET-SWAPPED', 'South and north swapped', sheets[0][2], sheets[0][5], sheets[0][4], sheets[0][3]]);
sheets.splice(8, 0, ['SHEET-X', 'x_east missing', sheets[1][2], sheets[1][3], '', sheets[1][5]]);
writeCsv('map-sheets.csv', ['sheet', 'name', 'x_west', 'y_south', 'x_east', 'y_north'], sheets);

await emulator.close();

// expected-failures.json: the planted rows that must fail, by job, 1-based row number and code.
// `npm run demo` and the tests compare every run's error report against it.
function rowsOf(file, idColumn, expected) {
  const rows = parseCsv(readFileSync(join(here, file), 'utf8'));
  return Object.entries(expected).map(([id, code]) => ({ row: rows.findIndex((r) => r[idColumn] === id) + 1, id, code }));
}
const featureRow = (id) => features.findIndex((f) => f.properties.place_id === id) + 1;
const expected = {
  geocode: rowsOf('community-centres.csv', 'osm_id', { 900101: 'FIELD_MISSING', 900103: 'FIELD_INVALID', 900104: 'NO_MATCH' }),
  // jobs/enrich-addresses.yaml: the same input through geocode, boundaries and elevation; only geocoding fails.
  'enrich-addresses': rowsOf('community-centres.csv', 'osm_id', { 900101: 'FIELD_MISSING', 900103: 'FIELD_INVALID', 900104: 'NO_MATCH' }),
  elevation: rowsOf('places.csv', 'place_id', { 900002: 'FIELD_INVALID', 900003: 'FIELD_MISSING', 900004: 'FIELD_INVALID' }),
  boundaries: [
    { row: featureRow('900011'), id: '900011', code: 'FIELD_MISSING' },
    { row: featureRow('900012'), id: '900012', code: 'OUTSIDE_COVERAGE' },
    { row: featureRow('900013'), id: '900013', code: 'INPUT_MALFORMED' },
  ],
  'reverse-geocode': rowsOf('gps-fixes.csv', 'fix_id', { 'fix-swapped': 'NO_MATCH', 'fix-north-sea': 'NO_MATCH' }),
  'customer-lookup': rowsOf('suppliers.csv', 'customer_no', { C90002: 'NOT_FOUND', C90003: 'FIELD_MISSING' }),
  matrix: rowsOf('depots.csv', 'depot_id', { 'DEPOT-X': 'FIELD_MISSING' }),
  'address-search': rowsOf('sites.csv', 'site_id', { 'SITE-BAD': 'FIELD_INVALID' }),
  route: rowsOf('routes.csv', 'job_id', { R9001: 'FIELD_MISSING', R9002: 'FIELD_INVALID', R9003: 'FIELD_INVALID' }),
  isochrone: rowsOf('isochrones.csv', 'site_id', {
    I901: 'FIELD_INVALID',
    I902: 'FIELD_MISSING',
    I903: 'FIELD_INVALID',
    I904: 'FIELD_INVALID',
    I905: 'HTTP_STATUS',
  }),
  trip: rowsOf('trips.csv', 'stop_id', { 'T03-03': 'FIELD_MISSING', 'T09-02': 'FIELD_MISSING', 'T11-90': 'FIELD_INVALID', 'T11-91': 'FIELD_INVALID' }),
  match: [
    { row: fix('V1', 40) + 1, id: 'V1 fix 41', code: 'FIELD_INVALID' },
    { row: fix('V2', 30) + 1, id: 'V2 fix 31', code: 'FIELD_INVALID' },
    { row: fix('V4', 12) + 1, id: 'V4 fix 13', code: 'FIELD_MISSING' },
    { row: fix('V5', 0) - 1, id: 'V2 again', code: 'FIELD_INVALID' },
    { row: fix('V5', 0), id: 'V2 again', code: 'FIELD_INVALID' },
  ],
  // From here on keyed by job file (jobs/<key>.yaml): a kind may have several.
  'address-search-by-address': rowsOf('branch-offices.csv', 'office_id', { 'OFF-X1': 'FIELD_MISSING', 'OFF-X2': 'NO_MATCH' }),
  'address-search-by-rectangle': rowsOf('sales-territories.csv', 'territory', { 'T-SWAPPED': 'FIELD_INVALID', 'T-OPEN': 'FIELD_MISSING' }),
  autocomplete: rowsOf('place-entries.csv', 'entry_id', { E9001: 'FIELD_MISSING', E9002: 'NO_MATCH', E9003: 'NO_MATCH' }),
  'identifier-lookup': rowsOf('stored-records.csv', 'record_no', { R9001: 'NOT_FOUND', R9002: 'FIELD_MISSING', R9003: 'FIELD_INVALID' }),
  'area-export': rowsOf('areas.csv', 'area_ref', { 'AREA-X1': 'NOT_FOUND', 'AREA-X2': 'FIELD_MISSING', 'AREA-X3': 'FIELD_INVALID' }),
  'area-export-rectangles': rowsOf('map-sheets.csv', 'sheet', { 'SHEET-SWAPPED': 'FIELD_INVALID', 'SHEET-X': 'FIELD_MISSING' }),
};
writeFileSync(join(here, 'expected-failures.json'), `${JSON.stringify(expected, null, 2)}\n`);
console.log('samples rebuilt in', here);
