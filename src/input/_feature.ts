/**
 * Checks one GeoJSON Feature and turns it into a row. A feature that is none fails whole; one whose
 * only fault is its geometry, or a property no output can carry, keeps its (other) properties, so
 * that its output record still says which row it is (written with a null geometry and the error),
 * never with a geometry a GIS would choke on.
 */
import type { Geometry } from 'geojson';
import type { ReadItem, RowIssue, RowRef } from '../types.js';
import { geometryProblem, isEmptyGeometry } from './_geometry.js';
import { badText, isPlainObject, toFields, withoutBadText } from './_values.js';

function featureProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not an object';
  if (value.type !== 'Feature') return `type is ${JSON.stringify(value.type)}, not "Feature"`;
  if (!('geometry' in value)) return 'no geometry member';
  if (value.properties !== undefined && value.properties !== null && !isPlainObject(value.properties)) {
    return 'properties is not an object';
  }
  return undefined;
}

export function featureToItem(value: unknown, ref: RowRef): ReadItem {
  const fault = featureProblem(value);
  if (fault !== undefined) return withProperties(invalid(value, ref, fault), value);
  const feature = value as { geometry: Geometry | null; properties?: Record<string, unknown> | null };
  const fields = toFields(feature.properties ?? {});
  const problem = feature.geometry === null ? undefined : geometryProblem(feature.geometry);
  const geometry = feature.geometry === null || isEmptyGeometry(feature.geometry) ? null : feature.geometry;
  const bad = badText(fields, 'property');
  if (bad !== undefined) {
    const issue = { ...invalid(value, ref, bad.message, bad.field), fields: withoutBadText(fields) };
    // A sound geometry stays with the row's other parts: the report fed back has it whole.
    return problem === undefined ? { ...issue, geometry } : issue;
  }
  if (problem !== undefined) return { ...invalid(value, ref, problem, 'geometry'), fields };
  return { kind: 'row', ref, fields, geometry };
}

/**
 * A record that is no valid Feature (`"type": "Fature"`, no geometry member) but has an object of
 * properties keeps them, as one with a bad geometry does: its output record says which row it is,
 * and a first record so broken still gives the outputs their columns.
 */
function withProperties(issue: RowIssue, value: unknown): RowIssue {
  if (!isPlainObject(value) || !isPlainObject(value.properties)) return issue;
  const fields = toFields(value.properties);
  return { ...issue, fields: badText(fields, 'property') === undefined ? fields : withoutBadText(fields) };
}

function invalid(value: unknown, ref: RowRef, problem: string, field?: string): RowIssue {
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Invalid GeoJSON feature: ${problem}`,
    // JSON text: raw numbers as written, a lone surrogate as its escape.
    raw: JSON.stringify(value) ?? String(value),
    ...(field === undefined ? {} : { field }),
  };
}
