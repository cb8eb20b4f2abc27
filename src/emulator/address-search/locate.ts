/**
 * ByBranchesAndAddress: where is the search location? Zip (a prefix when alone; several joined by
 * `|`, each complete), City, or the single-slot Location; Street is not verifiable (no street data).
 */
import type { GeoItem } from '../../contract/index.js';
import { ADDRESS_SEARCH_STATUS } from '../../contract/index.js';
import type { Locator } from '../datasets/locator.js';
import { nameMatchQuality } from '../datasets/locator.js';
import type { PostalRow } from '../datasets/postal.js';
import { fold, foldForms } from '../lib/_text.js';
import type { Problem } from './params.js';

export interface Centre {
  lon: number;
  lat: number;
  geoItem: GeoItem;
}

const notFound = (report: string): Problem => ({
  kind: 'status',
  code: ADDRESS_SEARCH_STATUS.LOCATION_NOT_FOUND,
  report,
});
const invalid = (report: string): Problem => ({
  kind: 'status',
  code: ADDRESS_SEARCH_STATUS.INVALID_PARAMETER,
  report,
});

export function geoItemFor(
  row: PostalRow | undefined,
  level: string,
  lon: number,
  lat: number,
  zip?: string,
): GeoItem {
  return {
    Country: 'D',
    District: row?.state ?? '',
    Zip: zip ?? row?.zip ?? '',
    City: row?.name ?? '',
    CityAddOn: null,
    CityPart: null,
    Street: '',
    HouseNo: null,
    GeoLevel: level,
    CityLevel: row ? 'CITY' : null,
    DistrictID: row?.districtArs ?? null,
    SeoLink: null,
    Description: row ? `${zip ?? row.zip} ${row.name}, ${row.state}` : null,
    LocX: String(lon),
    LocY: String(lat),
    CoordFormat: 'GEODECIMAL_POINT',
  };
}

const cityFits = (row: PostalRow, city: string) =>
  foldForms(row.name).some((f) => nameMatchQuality(city, f) > 0);

export function locateAddress(locator: Locator, query: URLSearchParams): Centre[] | Problem {
  let zipParam = query.get('Zip')?.trim() ?? '';
  let city = fold(query.get('City') ?? '');
  const single = query.get('Location')?.trim() ?? '';
  if (zipParam === '' && city === '' && single !== '') {
    const parsed = locator.parseSingleSlot(single);
    zipParam = parsed.zip ?? '';
    city = fold(parsed.city ?? '');
  }
  if (zipParam === '' && city === '') {
    return invalid(
      'Für die Adresssuche sind Zip, City oder Location erforderlich (Straßen allein sind nicht lokalisierbar).',
    );
  }
  const zips = zipParam
    .split('|')
    .map((z) => z.trim())
    .filter(Boolean);
  if (zips.length > 1) {
    if (!zips.every((z) => /^\d{5}$/.test(z)))
      return invalid('Mehrere Postleitzahlen müssen jeweils vollständig (5 Ziffern) sein.');
    const centres = zips.flatMap((zip) => {
      const row = locator.zipRows(zip).find((r) => city === '' || cityFits(r, city));
      return row ? [centreOf(row, 'ZIP')] : [];
    });
    return centres.length > 0
      ? centres
      : notFound(`Die Postleitzahlen ${zips.join(', ')} wurden nicht gefunden.`);
  }
  const zip = zips[0];
  if (zip !== undefined && /^\d{5}$/.test(zip)) {
    const row = locator.zipRows(zip).find((r) => city === '' || cityFits(r, city));
    return row ? [centreOf(row, 'ZIP')] : notFound(`Die Adresse ${zip} ${city} wurde nicht gefunden.`.trim());
  }
  if (zip !== undefined) return zipPrefix(locator, zip, city);
  const best = locator.cities(city)[0];
  return best
    ? [centreOf(best.representative, 'CITY')]
    : notFound(`Der Ort ${query.get('City') ?? single} wurde nicht gefunden.`);
}

function centreOf(row: PostalRow, level: string): Centre {
  return { lon: row.lon, lat: row.lat, geoItem: geoItemFor(row, level, row.lon, row.lat) };
}

/** A partial zip: the centroid of the zips it starts (of those the city fits, if given). */
function zipPrefix(locator: Locator, prefix: string, city: string): Centre[] | Problem {
  if (!/^\d{1,4}$/.test(prefix)) return invalid(`Ungültige Postleitzahl ${prefix}.`);
  const rows = locator
    .zipsWithPrefix(prefix)
    .map((z) => locator.zipRows(z).find((r) => city === '' || cityFits(r, city)))
    .filter((r): r is PostalRow => r !== undefined);
  if (rows.length === 0) return notFound(`Keine Postleitzahl beginnt mit ${prefix}.`);
  const lon = rows.reduce((s, r) => s + r.lon, 0) / rows.length;
  const lat = rows.reduce((s, r) => s + r.lat, 0) / rows.length;
  return [{ lon, lat, geoItem: geoItemFor(rows[0], 'ZIP_PREFIX', lon, lat, prefix) }];
}
