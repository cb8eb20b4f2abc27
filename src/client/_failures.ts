/**
 * The errors a request can end in, with messages that say what happened and what to do. Every
 * message goes through GeobatchError's scrub; none is ever built from a URL with its query.
 */
import type { ServiceCode } from '../errors.js';
import { ResponseError, ServiceError } from '../errors.js';
import { redactUrl } from '../secrets.js';
import type { Base } from './_call.js';
import type { Outage } from './_outage.js';
import type { Storm } from './_storm.js';
import type { Auth } from './auth.js';
import { SERVICE_LABEL } from './auth.js';
import { EMULATOR_URL_ENV, type InterfaceName } from './options.js';
import type { RetryCause } from './retry.js';

/** Where a request went; copied into every error's context. */
export interface RequestPlace {
  readonly service: InterfaceName;
  /** Path without the query string. */
  readonly endpoint: string;
}

const MAX_REPORT = 300;

/**
 * What an error body says, for `context.detail`. The bodies are not shown in the spec: accept
 * `{ errCode, publicReport }` (the emulator's choice), `message`/`error`/`detail`, a JSON string
 * (address search's 400) or plain text.
 */
export function errorDetail(text: string): Record<string, string> | undefined {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain text
  }
  if (typeof body === 'string') {
    const text = plainText(body);
    return text === '' ? undefined : { publicReport: clip(text) };
  }
  if (body === null || typeof body !== 'object') return undefined;
  const fields = body as Record<string, unknown>;
  const out: Record<string, string> = {};
  const code = fields.errCode ?? fields.code;
  if (typeof code === 'string' || typeof code === 'number') out.errCode = String(code);
  const report = fields.publicReport ?? fields.message ?? fields.error ?? fields.detail ?? fields.title;
  if (typeof report === 'string') out.publicReport = clip(report);
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * A text body as one line: a proxy's or load balancer's HTML page (a 502 or 503 that outlasted
 * the retries) by its title, not its markup, which went into the message and the error report's
 * cell as seven lines of HTML.
 */
function plainText(body: string): string {
  if (/<(?:!doctype|html|head|body)\b/i.test(body)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
    return (title ?? 'an HTML page').replace(/\s+/g, ' ').trim() || 'an HTML page';
  }
  return body.replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_REPORT ? `${trimmed.slice(0, MAX_REPORT)}...` : trimmed;
}

/** 401/402/403/412 (or a rejected login reported in a 200): the run must stop. */
export function fatalError(
  code: Extract<ServiceCode, 'AUTH_REJECTED' | 'AUTH_MISSING' | 'QUOTA_EXCEEDED'>,
  status: number | undefined,
  place: RequestPlace,
  auth: Auth,
  attempts: number | undefined,
  detail?: Record<string, string>,
  /** A Retry-After too long to wait for: the service's wait and the run's limit, in ms. */
  wait?: { readonly retryAfterMs: number; readonly stopAtMs: number },
): ServiceError {
  const label = SERVICE_LABEL[place.service];
  const shown = status === undefined ? '' : ` (${status})`;
  let message: string;
  let hint: string;
  // What the message says to do; the hint may add --resume, which a run that kept nothing drops
  // from it (run/_summary-facts.ts): the message must not say it.
  let todo: string | undefined;
  if (code === 'AUTH_MISSING') {
    message = `the service got no credential${shown} for ${label}`;
    hint = `set ${auth.setting(place.service)}`;
  } else if (code === 'QUOTA_EXCEEDED' && wait !== undefined) {
    const until = new Date(Date.now() + wait.retryAfterMs).toISOString().replace(/\.\d+Z$/, 'Z');
    // The limit is named, not "longer than": with stopOnRetryAfterMs 0, a 0 s wait stops too.
    message = `the service asks to wait ${waitText(wait.retryAfterMs)} (${status === undefined ? '' : `${status}, `}Retry-After) for ${label}; a run stops on a wait of ${waitText(wait.stopAtMs)} or more (retry.stopOnRetryAfterMs)`;
    todo = `try again after ${until}`;
    // One sentence: dropped whole when the run kept nothing to resume (run/_summary-facts.ts).
    hint = `run again with --resume after ${until}: the rows already done are kept`;
  } else if (code === 'QUOTA_EXCEEDED') {
    message = `the service reports the quota is used up${shown} for ${label}`;
    todo = 'wait until the quota resets or raise it';
    hint =
      'wait until the quota resets or raise it, then run again with --resume: the rows already done are kept';
  } else if (status === 403) {
    message = `the service refused access${shown} for ${label} with ${auth.credential(place.service)}`;
    hint = `check that the credential in ${auth.setting(place.service)} is enabled for ${label}`;
  } else {
    message = `the service rejected ${auth.credential(place.service)}${shown} for ${label}`;
    hint = `check ${auth.setting(place.service)}`;
  }
  return new ServiceError(code, `${message}: ${todo ?? hint}`, {
    ...place,
    ...(status === undefined ? {} : { status }),
    ...(attempts === undefined ? {} : { attempts }),
    hint,
    ...(detail === undefined ? {} : { detail }),
  });
}

/** A wait as a person reads it: seconds under two minutes, else minutes, else hours. */
function waitText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** A 4xx that no retry can change: this request fails, the run goes on. */
export function statusError(
  status: number,
  place: RequestPlace,
  attempts: number,
  text: string,
): ServiceError {
  const detail = errorDetail(text);
  const report = detail?.publicReport === undefined ? '' : `: ${detail.publicReport}`;
  return new ServiceError('HTTP_STATUS', `${SERVICE_LABEL[place.service]} answered ${status}${report}`, {
    ...place,
    status,
    attempts,
    ...(detail === undefined ? {} : { detail }),
  });
}

/** The last attempt failed transiently and no attempt is left. */
export function exhaustedError(
  cause: RetryCause,
  status: number | undefined,
  networkCode: string | undefined,
  place: RequestPlace,
  attempts: number,
  timeoutMs: number,
  detail?: Record<string, string>,
): ServiceError | ResponseError {
  const label = SERVICE_LABEL[place.service];
  const after = `after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
  // The last answer's own reason (a 503's errCode and publicReport), as a 4xx keeps its own.
  const context = {
    ...place,
    attempts,
    ...(status === undefined ? {} : { status }),
    ...(detail === undefined ? {} : { detail }),
  };
  if (cause === 'timeout') {
    return new ServiceError('TIMEOUT', `${label} did not answer within ${timeoutMs} ms, ${after}`, context);
  }
  if (cause === 'network') {
    const code = networkCode === undefined ? '' : ` (${networkCode})`;
    return new ServiceError('NETWORK', `the connection to ${label} failed${code}, ${after}`, context);
  }
  if (cause === 'malformed') {
    return new ResponseError(`${label} answered with a body that is not JSON, ${after}`, {
      ...context,
      expected: 'a JSON body',
    });
  }
  const report = detail?.publicReport === undefined ? '' : `: ${detail.publicReport}`;
  return new ServiceError(
    'RETRIES_EXHAUSTED',
    `${label} still answered ${status} ${after}${report}`,
    context,
  );
}

/**
 * Network codes that say the address itself cannot be reached (nothing listens, no such host, no
 * route), as opposed to a connection that was made and then failed.
 */
export const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The attempts of the request that stopped the run, and its last one's deadline. */
interface LastAttempt {
  readonly attempts: number;
  readonly timeoutMs: number;
}

/**
 * The interface's requests all ended without an answer (_outage.ts): from its first (it never
 * answered) or since it last answered. No row can succeed, so the run stops; the message says
 * what was seen, refused connections or timeouts, since each calls for something else.
 */
export function unreachableError(
  place: RequestPlace,
  base: Base,
  outage: Outage,
  last: LastAttempt,
): ServiceError {
  const label = SERVICE_LABEL[place.service];
  const { unconnected, timedOut, dropped, answered, silentMs } = outage;
  const { attempts } = last;
  const requests = unconnected + timedOut + dropped;
  const seen = unansweredText(outage, last);
  // One request can meet the verdict alone: it waited for the service past its retries.
  const first = requests === 1 ? 'its first request' : `its first ${requests} requests`;
  const latest = requests === 1 ? 'its last request' : `its last ${requests} requests`;
  // The base with its path: a wrong path is as likely as a wrong host. Never a credential: a URL
  // holding one is refused when the options are read.
  const origin = `${base.origin}${base.prefix}`;
  const address = `check the address set for ${label} (${whereSet(base)})`;
  let message: string;
  let hint: string;
  if (silentMs === undefined) {
    message = `${label} at ${origin} never answered: ${first} ${seen}`;
    hint = `${address} and that the service is up`;
  } else if (!answered) {
    message = `${label} at ${origin} never answered: nothing in ${seconds(silentMs)} s since its first request, and ${first} ${seen}`;
    hint = `it takes connections but answers nothing: ${address} and that the service is up and not overloaded; if it is only slow, raise service.timeoutMs`;
  } else {
    message = `${label} at ${origin} stopped answering: nothing for ${seconds(silentMs)} s, and ${latest} ${seen}`;
    const failedAs =
      timedOut === 0 ? 'NETWORK' : unconnected + dropped === 0 ? 'TIMEOUT' : 'TIMEOUT, NETWORK';
    const rerun = `run again with --resume; rows that failed for it before the stop, if any, are in the error report (${failedAs}), to retry`;
    hint =
      timedOut === 0 && dropped === 0
        ? `once the service is up again, ${rerun}`
        : timedOut === 0
          ? `it takes connections but closes them without an answer (a proxy or load balancer before a service that is down): once it answers again, ${rerun}`
          : `it takes connections but answers nothing (hung or overloaded): once it answers again (if it is only slow, raise service.timeoutMs), ${rerun}`;
  }
  const detail = { unconnected, timedOut, dropped, ...(silentMs === undefined ? {} : { silentMs }) };
  return new ServiceError('SERVICE_UNREACHABLE', `${message}: ${hint}`, { ...place, attempts, hint, detail });
}

/**
 * The interface answered nothing but 5xx (502, 503, 504, 500) for `retry.outageMs`, its requests
 * through all their retries (_storm.ts): the service is there but down, a maintenance window or a
 * backend gone behind its proxy. No row can succeed, so the run stops with its checkpoint, as for
 * a silence, and the message says what it answered and for how long.
 */
export function stormError(place: RequestPlace, base: Base, storm: Storm, last: LastAttempt): ServiceError {
  const label = SERVICE_LABEL[place.service];
  const { requests, statuses, served, silentMs } = storm;
  const { attempts } = last;
  const shown =
    statuses.length === 1 ? `${statuses[0]}` : `${statuses.slice(0, -1).join(', ')} and ${statuses.at(-1)}`;
  const which =
    requests === 1
      ? 'its last request through all its attempts'
      : `its last ${requests} requests through all their attempts`;
  const each = requests === 1 ? `${attempts} attempts` : `${attempts} attempts each`;
  const since = served ? 'since it last served a request' : 'since its first request';
  const origin = `${base.origin}${base.prefix}`;
  const message = `${label} at ${origin} answered only ${shown} for ${seconds(silentMs)} s ${since}, ${which} (${each}): the service is down or in maintenance`;
  const hint =
    'run again later with --resume, once the service is up again; rows that failed for it before the stop, if any, are in the error report (RETRIES_EXHAUSTED), to retry';
  const detail = { statuses: statuses.join(','), requests, silentMs };
  return new ServiceError('SERVICE_UNREACHABLE', `${message}: ${hint}`, { ...place, attempts, hint, detail });
}

/**
 * The interface answered nothing but 429 for PUSHBACK_STOP_FACTOR times `retry.outageMs`
 * (_storm.ts), at the adaptive rate's floor: it lets nothing through, and the run would go on for
 * hours writing nothing. It stops with its checkpoint; the message says how long and at what rate.
 */
export function rateLimitedError(
  place: RequestPlace,
  sinceMs: number,
  answers: number,
  rate: number | null,
  attempts: number,
): ServiceError {
  const label = SERVICE_LABEL[place.service];
  const at = rate === null ? 'with no client-side limit' : `at ${Math.round(rate * 100) / 100} requests/s`;
  const message = `${label} answered only 429 (too many requests) for ${seconds(sinceMs)} s, ${answers} answers ${at}: it lets nothing through`;
  const todo = 'run again later, or with a lower --rate';
  const hint =
    'run again later with --resume, or with --resume and a lower --rate: the rows already done are kept';
  return new ServiceError('QUOTA_EXCEEDED', `${message}: ${todo}`, {
    ...place,
    status: 429,
    attempts,
    hint,
    detail: { sinceMs, answers, ...(rate === null ? {} : { rate }) },
  });
}

/**
 * Where this run's address was set: the one place, as the caller named it (the CLI: a variable or
 * the job file's key). Listing every place an address may come from sent users to look in places
 * they had never set.
 */
function whereSet(base: Base): string {
  return base.setBy;
}

/**
 * A 404 that reads as the server's answer for a path it does not have, or a 405 or 501, from an
 * operation that never answered (_missing.ts): the address has no such operation, and every row
 * would fail alike. The message names the address as configured and the URL that answered,
 * neither with its query (where a key travels).
 */
export function noSuchOperationError(
  place: RequestPlace,
  base: Base,
  call: { readonly method: string; readonly path: string },
  status: number,
  attempts: number,
  text: string,
  allow: string | undefined,
): ServiceError {
  const label = SERVICE_LABEL[place.service];
  const configured = redactUrl(`${base.origin}${base.prefix}`);
  const url = redactUrl(`${base.origin}${base.prefix}${call.path}`);
  const answered =
    status === 405
      ? `answered 405: it does not take ${call.method}${allow === undefined ? '' : ` (it takes ${allow})`}`
      : status === 501
        ? `answered 501: the server there implements no ${call.method} request (not the service, a web server of another kind)`
        : 'answered 404 the way the server answers any path it does not have';
  // Only the emulator's variable takes an origin alone: said where it set the address.
  const emulator =
    base.setBy === EMULATOR_URL_ENV ? `, which takes the emulator's origin alone, http://host:port` : '';
  const check = `check the path of the address set for ${label} (${whereSet(base)}${emulator})`;
  const detail = errorDetail(text);
  return new ServiceError(
    'ENDPOINT_NOT_FOUND',
    `${label} at ${configured} has no such operation: ${call.method} ${url} ${answered}: ${check}`,
    {
      ...place,
      status,
      attempts,
      hint: `${check}, then run again with --resume`,
      ...(detail === undefined ? {} : { detail }),
    },
  );
}

/** What the requests without an answer met, by their last attempts. */
function unansweredText(outage: Outage, last: LastAttempt): string {
  const { unconnected, timedOut, dropped, connectCode } = outage;
  const each =
    unconnected + timedOut + dropped === 1 ? `${last.attempts} attempts` : `${last.attempts} attempts each`;
  if (timedOut === 0 && dropped === 0) return `could not connect (${connectCode ?? 'no code'}), ${each}`;
  const waited = `(the last given ${last.timeoutMs} ms)`;
  if (unconnected === 0 && dropped === 0) return `timed out, ${each} ${waited}`;
  if (unconnected === 0 && timedOut === 0) return `had their connections closed without an answer, ${each}`;
  const parts = [
    timedOut > 0 ? `${timedOut} timed out` : '',
    dropped > 0 ? `${dropped} closed without an answer` : '',
    unconnected > 0 ? `${unconnected} could not connect: ${connectCode ?? 'no code'}` : '',
  ].filter((part) => part !== '');
  return `got no answer (${parts.join(', ')}), ${each}${timedOut > 0 ? ` ${waited}` : ''}`;
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
