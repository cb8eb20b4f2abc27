/**
 * The words that name a point's longitude and latitude columns, English and German, compacted
 * (lower case, umlauts spelt out, no separators): what `geobatch init` guesses a mapping by
 * (src/cli/_columns.ts), and what tells which half of a point a column holds where a job file
 * reads one column for both (src/run/_one-column-point.ts).
 */

/** Most telling first. */
export const AXIS_NAMES = {
  lon: ['lon', 'lng', 'longitude', 'long', 'laenge', 'geolaenge', 'lonwgs84', 'x'],
  lat: ['lat', 'latitude', 'breite', 'geobreite', 'latwgs84', 'y'],
} as const satisfies Record<'lon' | 'lat', readonly string[]>;

/** The words of a name: `Straße Nr.` -> [strasse, nr]; `fromLon` -> [from, lon]. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * The half of a point a column's name says it holds (`Breite`, `geo_lat`, `from_y`: lat), or
 * undefined when the name says neither or both.
 */
export function axisOfName(column: string): 'lon' | 'lat' | undefined {
  const parts = words(column);
  const says = (axis: 'lon' | 'lat') => {
    const names: readonly string[] = AXIS_NAMES[axis];
    return names.includes(parts.join('')) || parts.some((part) => names.includes(part));
  };
  const [lon, lat] = [says('lon'), says('lat')];
  return lon === lat ? undefined : lon ? 'lon' : 'lat';
}
