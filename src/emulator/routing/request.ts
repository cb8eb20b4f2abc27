/** Checks a routing request body against the spec's per-type feature table; problems are 400s. */
import type { CoordFormat, RoutingType, SpeedProfile } from '../../contract/index.js';
import { ROUTING_MAX_POINTS, SPEED_PROFILES } from '../../contract/index.js';
import { isRecord } from '../_http.js';
import { isCoordFormat } from '../lib/_coords.js';
import { isLatitude, isLongitude } from '../lib/_geo.js';

export type Position = [number, number];

export interface Common {
  type: RoutingType;
  coordFormatOut: CoordFormat;
  speedProfile: SpeedProfile;
  roundTrip: boolean;
  params: Record<string, unknown>;
}

export type Parsed =
  | (Common & { type: 'ROUTE'; points: Position[] })
  | (Common & { type: 'MATRIX'; start: Position; ends: Position[] })
  | (Common & { type: 'TRIP'; points: Position[] })
  | (Common & { type: 'ISOCHRONE'; origin: Position })
  | (Common & { type: 'MATCH'; points: Position[] });

type Feature = { geometry?: { type?: unknown; coordinates?: unknown }; properties?: unknown };

/** The request, or the message for a 400. */
export function parseRouting(body: unknown): Parsed | string {
  if (!isRecord(body) || !isRecord(body.routingparams)) {
    return 'Erwartet wird eine FeatureCollection mit routingparams.';
  }
  if (body.type !== undefined && body.type !== 'FeatureCollection')
    return '`type` muss FeatureCollection sein.';
  const common = commonParams(body.routingparams);
  if (typeof common === 'string') return common;
  if (!Array.isArray(body.features)) return '`features` muss eine Liste sein.';
  return byType(common, body.routingparams.type, body.features as Feature[]);
}

function commonParams(rp: Record<string, unknown>): Omit<Common, 'type'> | string {
  const coordFormatOut = rp.coordFormatOut ?? 'GEODECIMAL_POINT';
  if (!isCoordFormat(coordFormatOut)) return 'routingparams.coordFormatOut ist unbekannt.';
  const speedProfile = rp.speedProfile ?? 'FAST';
  if (!SPEED_PROFILES.includes(speedProfile as SpeedProfile))
    return 'routingparams.speedProfile ist unbekannt.';
  // The language of route instructions (spec: a string). The emulator writes no instructions, so
  // it only checks the form, as address search's IsoLocale is checked: a client sending `english`
  // is caught here rather than answered as if it had asked for nothing.
  const locale = rp.isoLocale;
  if (
    locale !== undefined &&
    (typeof locale !== 'string' || !/^[A-Za-z]{2}(?:[-_][A-Za-z]{2})?$/.test(locale))
  )
    return 'routingparams.isoLocale muss eine Sprache wie de-DE oder en-GB sein.';
  const mode = rp.routingTimeMode;
  if (mode !== undefined && mode !== 'ARRIVAL' && mode !== 'DEPARTURE') {
    return 'routingparams.routingTimeMode muss ARRIVAL oder DEPARTURE sein.';
  }
  return {
    coordFormatOut,
    speedProfile: speedProfile as SpeedProfile,
    roundTrip: rp.routingRoundTrip === true,
    params: rp,
  };
}

/** The spec's per-type feature table. */
function byType(common: Omit<Common, 'type'>, type: unknown, features: Feature[]): Parsed | string {
  const [first = {}, second = {}] = features;
  switch (type) {
    case 'ROUTE': {
      if (features.length < 2) return 'ROUTE braucht mindestens zwei Point-Features.';
      const points: Position[] = [];
      for (const [i, f] of features.entries()) {
        const p = point(f, i);
        if (typeof p === 'string') return p;
        points.push(p);
      }
      return limit(points) ?? { ...common, type, points };
    }
    case 'MATRIX': {
      if (features.length !== 2) return 'MATRIX braucht genau zwei Features: StartPoint und MultiPoint.';
      const start = point(first, 0);
      if (typeof start === 'string') return start;
      if (!isRecord(first.properties) || first.properties.type !== 'StartPoint') {
        return 'features[0].properties.type muss StartPoint sein.';
      }
      const ends = multiPoint(second, 1, 1);
      return typeof ends === 'string' ? ends : (limit(ends) ?? { ...common, type, start, ends });
    }
    case 'TRIP':
    case 'MATCH': {
      if (features.length !== 1) return `${type} braucht genau ein MultiPoint-Feature.`;
      const points = multiPoint(first, 0, type === 'TRIP' ? 2 : 1);
      return typeof points === 'string' ? points : (limit(points) ?? { ...common, type, points });
    }
    case 'ISOCHRONE': {
      if (features.length !== 1) return 'ISOCHRONE braucht genau ein Point-Feature.';
      const origin = point(first, 0);
      return typeof origin === 'string' ? origin : { ...common, type, origin };
    }
    default:
      return 'routingparams.type muss ROUTE, MATRIX, TRIP, ISOCHRONE oder MATCH sein.';
  }
}

function limit(points: Position[]): string | undefined {
  return points.length > ROUTING_MAX_POINTS
    ? `Höchstens ${ROUTING_MAX_POINTS} Punkte je Anfrage.`
    : undefined;
}

function position(value: unknown, where: string): Position | string {
  if (!Array.isArray(value) || !isLongitude(value[0]) || !isLatitude(value[1])) {
    return `${where}: Koordinaten [Länge, Breite] im Bereich [-180..180, -90..90] erwartet.`;
  }
  return [value[0], value[1]];
}

function point(f: Feature, i: number): Position | string {
  if (!isRecord(f) || !isRecord(f.geometry) || f.geometry.type !== 'Point')
    return `features[${i}] muss ein Point sein.`;
  return position(f.geometry.coordinates, `features[${i}]`);
}

function multiPoint(f: Feature, i: number, min: number): Position[] | string {
  if (!isRecord(f) || !isRecord(f.geometry) || f.geometry.type !== 'MultiPoint') {
    return `features[${i}].geometry.type muss MultiPoint sein.`;
  }
  const coords = f.geometry.coordinates;
  if (!Array.isArray(coords) || coords.length < min)
    return `features[${i}] braucht mindestens ${min} Punkte.`;
  const out: Position[] = [];
  for (const [j, c] of coords.entries()) {
    const p = position(c, `features[${i}].geometry.coordinates[${j}]`);
    if (typeof p === 'string') return p;
    out.push(p);
  }
  return out;
}
