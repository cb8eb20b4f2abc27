/**
 * Lines and rings for the map, drawn the short way round the antimeridian. Leaflet joins positions
 * by straight lines in longitude, so an isochrone around Fiji written from 179.9 to -179.9 would be
 * drawn as a band across the whole world. Each line and ring is unwrapped step by step (lonStep, as the
 * areas are measured): a position may be moved by whole turns of 360°, so that no step between
 * consecutive positions exceeds 180°; Leaflet draws longitudes beyond ±180 next to the dateline.
 * A geometry that crosses nothing keeps its numbers bit for bit (only whole turns are added).
 *
 * Invariants: every line and ring of a geometry starts within 180° of the geometry's first position,
 * so the holes and parts of a polygon stay beside it; points are joined to nothing and stay as they
 * are; a ring whose steps go once round the globe encloses a pole, and unwrapped it would end 360°
 * from its start, to be closed by Leaflet with a line straight back across the map: it stays as
 * written (which is right for a ring cut at ±180 and closed through the pole, and no worse than
 * before for any other).
 */
import type { Geometry, Position } from 'geojson';
import { lonStep } from '../jobs/_geometry.js';

/** The geometry with the longitudes of its lines and rings unwrapped (see above); a copy. */
export function unwrapGeometry(geometry: Geometry): Geometry {
  const reference = firstLongitude(geometry);
  return reference === undefined ? geometry : unwrapNear(geometry, reference);
}

function unwrapNear(geometry: Geometry, reference: number): Geometry {
  switch (geometry.type) {
    case 'Point':
    case 'MultiPoint':
      return geometry;
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
