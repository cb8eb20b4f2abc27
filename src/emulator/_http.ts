/** What a handler sees of a request and gives back, and the helpers that build answers. */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ServiceErrorBody } from '../contract/index.js';

/** A POST body: absent, parsed JSON, or text that is not JSON. */
export type RequestBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid'; text: string };

export interface ServiceRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The query string as sent (without `?`): address search reads `Addition` from it undecoded. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  body: RequestBody;
}

export interface Reply {
  status: number;
  body: string;
  /** @default 'application/json; charset=utf-8' */
  contentType?: string;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value), contentType: JSON_TYPE };
}

/** An answer whose JSON text is already built (precomputed fragments). */
export function jsonText(status: number, body: string): Reply {
  return { status, body, contentType: JSON_TYPE };
}

export function plain(status: number, message: string): Reply {
  return { status, body: message, contentType: 'text/plain; charset=utf-8' };
}

/** The error body of routing, geocoding, area, elevation and autocomplete (contract ServiceErrorBody). */
export function serviceError(status: number, errCode: string, publicReport: string): Reply {
  const body: ServiceErrorBody = { errCode, publicReport };
  return json(status, body);
}

export const badRequest = (publicReport: string): Reply => serviceError(400, 'BAD_REQUEST', publicReport);

export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/** Reads the whole body; null when it exceeds `limit` (the rest is drained, not buffered). */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    else chunks.push(chunk);
  }
  return tooLarge ? null : Buffer.concat(chunks).toString('utf8');
}

export function parseBody(text: string): RequestBody {
  if (text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'invalid', text };
  }
}

/** A plain object (not an array, not null), for reading JSON bodies. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A query parameter as a finite number; undefined when absent, NaN when not a number. */
export function numberParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  return Number(raw.trim());
}
