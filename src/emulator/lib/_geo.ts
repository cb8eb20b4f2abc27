/** Spherical geometry on WGS84 degrees. The emulator keeps its own math: it shares only wire types. */

/** Mean Earth radius (IUGG), the radius routing distances are computed with. */
export const EARTH_RADIUS_M = 6371008.8;

const RAD = Math.PI / 180;

/** Great-circle distance in metres between two [lon, lat] points. */
export function haversine(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The point `distance` metres from (lon, lat) in direction `bearingDeg` (clockwise from north). */
export function destination(
  lon: number,
  lat: number,
  distance: number,
  bearingDeg: number,
): [number, number] {
  const delta = distance / EARTH_RADIUS_M;
  const theta = bearingDeg * RAD;
  const phi1 = lat * RAD;
  const lambda1 = lon * RAD;
  const phi2 = Math.asin(
    Math.sin(phi1) * Math.cos(delta) + Math.cos(phi1) * Math.sin(delta) * Math.cos(theta),
  );
  const lambda2 =
    lambda1 +
    Math.atan2(
      Math.sin(theta) * Math.sin(delta) * Math.cos(phi1),
      Math.cos(delta) - Math.sin(phi1) * Math.sin(phi2),
    );
  return [((lambda2 / RAD + 540) % 360) - 180, phi2 / RAD];
}

/** A [minLon, minLat, maxLon, maxLat] box that contains every point within `radius` metres. */
export function radiusBox(lon: number, lat: number, radius: number): [number, number, number, number] {
  const dLat = radius / EARTH_RADIUS_M / RAD;
  const cos = Math.cos(Math.min(89, Math.abs(lat) + dLat) * RAD);
  const dLon = Math.min(180, dLat / Math.max(cos, 1e-6));
  return [lon - dLon, Math.max(-90, lat - dLat), lon + dLon, Math.min(90, lat + dLat)];
}

export function isLongitude(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= -180 && value <= 180;
}

export function isLatitude(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= -90 && value <= 90;
}

export type BBox = [number, number, number, number];

/** Grows `into` (mutated) by `box`; returns it. */
export function extendBox(into: BBox | null, box: readonly number[]): BBox {
  const [a = 0, b = 0, c = a, d = b] = box;
  if (into === null) return [a, b, c, d];
  into[0] = Math.min(into[0], a);
  into[1] = Math.min(into[1], b);
  into[2] = Math.max(into[2], c);
  into[3] = Math.max(into[3], d);
  return into;
}

/** Bounding box of a list of positions. */
export function boxOfPositions(positions: readonly (readonly number[])[]): BBox | null {
  let box: BBox | null = null;
  for (const p of positions) box = extendBox(box, [p[0] ?? 0, p[1] ?? 0]);
  return box;
}
