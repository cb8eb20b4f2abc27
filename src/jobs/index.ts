/**
 * Builds the job a job file describes. The one place that knows every job kind.
 */
import type { JobConfig } from '../config/load.js';
import type { AnyJob } from '../engine/job.js';
import type {
  AddressSearchPort,
  BoundariesPort,
  CustomerLookupPort,
  ElevationPort,
  GeocodePort,
  MatrixPort,
  ReverseGeocodePort,
} from './_ports.js';
import { createAddressSearchJob } from './address-search.js';
import { createBoundariesJob } from './boundaries.js';
import { createCustomerLookupJob } from './customers.js';
import { createElevationJob } from './elevation.js';
import { createGeocodeJob } from './geocode.js';
import { createMatrixJob, type Destination } from './matrix.js';
import { createReverseGeocodeJob } from './reverse-geocode.js';

/** Everything any job may call; the real client satisfies it, tests may pass a fake. */
export type JobClient = GeocodePort &
  ReverseGeocodePort &
  ElevationPort &
  CustomerLookupPort &
  BoundariesPort &
  MatrixPort &
  AddressSearchPort;

export interface JobExtras {
  /** Matrix cross mode: the destinations file, already read. */
  readonly destinations?: readonly Destination[];
}

export function createJob(config: JobConfig, client: JobClient, extras: JobExtras = {}): AnyJob {
  const doc = config.document;
  const mapping = config.mapping;
  switch (doc.job) {
    case 'geocode':
      return createGeocodeJob(client, { mapping, ...doc.options });
    case 'reverse-geocode':
      return createReverseGeocodeJob(client, { mapping, ...doc.options });
    case 'elevation':
      return createElevationJob(client, { mapping, ...doc.options });
    case 'customer-lookup':
      return createCustomerLookupJob(client, {
        mapping,
        ...doc.options,
        baseUrl: config.service.endpoints.addressSearch ?? '',
      });
    case 'boundaries':
      return createBoundariesJob(client, { mapping, ...doc.options });
    case 'matrix': {
      const { destinations: _file, ...options } = doc.options ?? {};
      return createMatrixJob(client, {
        mapping,
        ...options,
        destinations: extras.destinations,
      });
    }
    case 'address-search':
      return createAddressSearchJob(client, {
        mapping,
        ...doc.options,
      });
  }
}

/** The services a job kind calls, so a run can check their endpoints before the first row. */
export const SERVICES_BY_KIND = {
  geocode: ['geojson'],
  'reverse-geocode': ['geojson'],
  elevation: ['elevation'],
  'customer-lookup': ['addressSearch'],
  boundaries: ['area'],
  matrix: ['geojson'],
  'address-search': ['addressSearch'],
} as const;
