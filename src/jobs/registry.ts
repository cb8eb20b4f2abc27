/**
 * Every job kind geobatch knows, in the order the README and `--help` list them. Adding a kind is
 * its module plus one line here; the schema, `validate`, `--dry-run`, the demo and the README's
 * job table follow from the record.
 */
import type { JobKind } from './_kind.js';
import { addressSearchKind } from './address-search.js';
import { areaExportKind } from './area-export.js';
import { autocompleteKind } from './autocomplete.js';
import { boundariesKind } from './boundaries.js';
import { customerLookupKind } from './customers.js';
import { elevationKind } from './elevation.js';
import { geocodeKind } from './geocode.js';
import { identifierLookupKind } from './identifier-lookup.js';
import { isochroneKind } from './isochrone.js';
import { matchKind } from './match.js';
import { matrixKind } from './matrix.js';
import { reverseGeocodeKind } from './reverse-geocode.js';
import { routeKind } from './route.js';
import { tripKind } from './trip.js';

export const JOB_KINDS: readonly JobKind[] = [
  geocodeKind,
  reverseGeocodeKind,
  elevationKind,
  customerLookupKind,
  boundariesKind,
  // Before matrix: an origin and a destination a row, and nothing else, make a route (init's tie).
  routeKind,
  matrixKind,
  addressSearchKind,
  isochroneKind,
  tripKind,
  matchKind,
  autocompleteKind,
  identifierLookupKind,
  areaExportKind,
];

/** The kind a job file names; undefined for a name no record has. */
export function jobKind(name: string): JobKind | undefined {
  return JOB_KINDS.find((kind) => kind.name === name);
}

export const JOB_KIND_NAMES: readonly string[] = JOB_KINDS.map((kind) => kind.name);
