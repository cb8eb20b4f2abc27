/**
 * Lines and rings for the map, drawn the short way round the antimeridian. Leaflet joins positions
 * by straight lines in longitude, so an isochrone around Fiji written from 179.9 to -179.9 would be
 * drawn as a band across the whole world. Each line and ring is unwrapped step by step (lonStep, as the
 * areas are measured): a position may be moved by whole turns of 360°, so that no step between
 * consecutive positions exceeds 180°; Leaflet draws longitudes beyond ±180 next to the dateline.
 * A geometry that crosses nothing keeps its numbers bit for bit (only whole turns are added).
 *
 * Invariants: every line and ring of a geometry starts within 180° of the geometry's first position,
 * so the holes and parts of a polygon stay beside it; a point is joined to nothing and stays as it
 * is, and a MultiPoint's points move by turns to lie within 180° of its first (they have no order to
 * follow), so that its middle, which gathering goes by, is where its points are; a ring whose steps go once round the globe encloses a pole, and unwrapped it would end 360°
 * from its start, to be closed by Leaflet with a line straight back across the map: it stays as
 * written (which is right for a ring cut at ±180 and closed through the pole, and no worse than
 * before for any other).
 *
 * Unwrapped one by one, each geometry stays near its own first position, so two isochrones beside
 * each other on either side of the dateline (centred at 179.9 and -179.95) would still be drawn
 * 360° apart. The map's geometries are therefore gathered too (gatherGeometries): when the data
 * set straddles the antimeridian, whole geometries, points included, move by turns of 360° so that
 * they lie together. The map fits its view (and the circle markers of points) to the coordinates
 * it is given, so its bounds follow the moved shapes.
 */
import type { Geometry, Position } from 'geojson';
import { lonStep } from '../jobs/_geometry.js';

/** The geometry with the longitudes of its lines and rings unwrapped (see above); a copy. */
export function unwrapGeometry(geometry: Geometry): Geometry {
  const reference = firstLongitude(geometry);
  return reference === undefined ? geometry : unwrapNear(geometry, reference);
}

/**
 * The geometries with those across the antimeridian from the rest moved by whole turns: the moved
 * ones are copies, the rest the very objects given. The data set straddles the antimeridian when the
 * widest gap between the centres of its geometries (the middle of each one's longitudes) lies
 * inside -180..180 rather than across ±180, and is at least half the world: cut there, the data
 * spans a hemisphere at most, and less than as written. Data on one side (Europe; the Pacific west
 * of the dateline) has its widest gap across ±180, and data spread round the world has no gap of
 * half of it: both keep their numbers bit for bit. The turns put every centre within the gathered
 * span, whose middle stays within -180..180, so the data is drawn beside the usual map.
 */
export function gatherGeometries(geometries: readonly Geometry[]): Geometry[] {
  const centres = geometries.map(centreLongitude);
  const middle = gatheredMiddle(centres);
  if (middle === undefined) return geometries.slice();
  return geometries.map((geometry, i) => {
    const centre = centres[i];
    const turns = centre === undefined ? 0 : Math.round((middle - centre) / 360);
    return turns === 0 ? geometry : shiftGeometry(geometry, turns);
  });
}

/** The middle of the centres cut at their widest gap, or undefined when that gap is no cut. */
function gatheredMiddle(centres: readonly (number | undefined)[]): number | undefined {
  const sorted = centres
    .filter((c): c is number => c !== undefined)
    .map(normalize)
    .sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === undefined || last === undefined) return undefined;
  let gap = 0;
  let after = first;
  for (let i = 1; i < sorted.length; i++) {
    const step = (sorted[i] as number) - (sorted[i - 1] as number);
    if (step > gap) [gap, after] = [step, sorted[i] as number];
  }
  const acrossDateline = first + 360 - last;
  if (gap <= acrossDateline || gap < 180) return undefined;
  return normalize(after + (360 - gap) / 2);
}

/** The middle of a geometry's longitudes (as unwrapped), or undefined for an empty one. */
function centreLongitude(geometry: Geometry): number | undefined {
  let west = Number.POSITIVE_INFINITY;
  let east = Number.NEGATIVE_INFINITY;
  eachLongitude(geometry, (lon) => {
    if (lon < west) west = lon;
    if (lon > east) east = lon;
  });
  return west > east ? undefined : (west + east) / 2;
}

function eachLongitude(geometry: Geometry, visit: (lon: number) => void): void {
  if (geometry.type === 'GeometryCollection') {
    for (const member of geometry.geometries) eachLongitude(member, visit);
    return;
  }
  const walk = (value: unknown): void => {
    if (!Array.isArray(value)) return;
    if (typeof value[0] === 'number') visit(value[0]);
    else for (const item of value) walk(item);
  };
  walk(geometry.coordinates);
}

/** A copy moved by `turns` × 360° in longitude, rounded to 1e-5° as the map's coordinates are. */
function shiftGeometry(geometry: Geometry, turns: number): Geometry {
  if (geometry.type === 'GeometryCollection')
    return { ...geometry, geometries: geometry.geometries.map((g) => shiftGeometry(g, turns)) };
  const shift = (value: unknown): unknown => {
    if (!Array.isArray(value)) return value;
    if (typeof value[0] !== 'number') return value.map(shift);
    const [lon, ...rest] = value as number[];
    return [Math.round(((lon as number) + 360 * turns) * 1e5) / 1e5, ...rest];
  };
  return { ...geometry, coordinates: shift(geometry.coordinates) } as Geometry;
}

/** The same longitude within -180 (included) to 180 (excluded). */
function normalize(lon: number): number {
  return lon - 360 * Math.floor((lon + 180) / 360);
}

function unwrapNear(geometry: Geometry, reference: number): Geometry {
  switch (geometry.type) {
    case 'Point':
      return geometry;
    case 'MultiPoint':
      return { ...geometry, coordinates: geometry.coordinates.map((point) => nearTo(point, reference)) };
    case 'LineString':
      return { ...geometry, coordinates: unwrapLine(geometry.coordinates, reference) };
    case 'MultiLineString':
      return { ...geometry, coordinates: geometry.coordinates.map((line) => unwrapLine(line, reference)) };
    case 'Polygon':
      return { ...geometry, coordinates: unwrapRings(geometry.coordinates, reference) };
    case 'MultiPolygon':
      return {
        ...geometry,
        coordinates: geometry.coordinates.map((rings) => unwrapRings(rings, reference)),
      };
    case 'GeometryCollection':
      return { ...geometry, geometries: geometry.geometries.map((g) => unwrapNear(g, reference)) };
  }
}

function unwrapRings(rings: readonly (readonly Position[])[], reference: number): Position[][] {
  return rings.map((ring) => {
    const unwrapped = unwrapLine(ring, reference);
    const first = unwrapped[0];
    const last = unwrapped.at(-1);
    if (first === undefined || last === undefined) return unwrapped;
    // Once round: the last position is about 360° from the first (and, closed, the same place).
    const closing = lonStep(ring.at(-1)?.[0] as number, ring[0]?.[0] as number);
    const round = (last[0] as number) + closing - (first[0] as number);
    return Math.abs(round) > 180 ? ring.map((p) => [...p]) : unwrapped;
  });
}

/**
 * Each longitude moved by the whole turns that put it within 180° of the one before it (the first
 * within 180° of `reference`). Counted in turns, not summed in degrees, so that a position that
 * is not moved keeps its exact value.
 */
function unwrapLine(line: readonly Position[], reference: number): Position[] {
  let previous = reference;
  let previousLon = reference;
  return line.map((position) => {
    const lon = position[0] as number;
    const turns = Math.round((previous + lonStep(previousLon, lon) - lon) / 360);
    previous = turns === 0 ? lon : lon + 360 * turns;
    previousLon = lon;
    return [previous, ...position.slice(1)];
  });
}

/** The position moved by the whole turns that put it within 180° of `reference`; itself if none. */
function nearTo(position: Position, reference: number): Position {
  const lon = position[0] as number;
  const turns = Math.round((reference - lon) / 360);
  return turns === 0 ? position : [lon + 360 * turns, ...position.slice(1)];
}

function firstLongitude(geometry: Geometry): number | undefined {
  if (geometry.type === 'GeometryCollection') {
    for (const member of geometry.geometries) {
      const lon = firstLongitude(member);
      if (lon !== undefined) return lon;
    }
    return undefined;
  }
  let value: unknown = geometry.coordinates;
  while (Array.isArray(value)) {
    if (typeof value[0] === 'number') return value[0];
    value = value[0];
  }
  return undefined;
}
