/**
 * Whether a 404 means "this record is not known" or "this address has no such operation".
 *
 * The first fails its row: an identifier or area lookup's unknown id, geocoding's "no match" where
 * the service says it with a 404. The second fails every row alike: a typo in an endpoint's path,
 * or GEOBATCH_EMULATOR_URL with a path after the port, sent all 100,000 rows of a file and
 * reported each as HTTP_STATUS, with advice about its values; the run must stop instead. Neither
 * the status nor the body tells them apart: the spec shows no 404 body, and what a server answers
 * for a path it does not have is HTML, an empty body, or JSON of any shape, the service's own
 * error shape included (the emulator's is). A run of 404s proves nothing either: a file's first
 * thousand ids may all be unknown.
 *
 * The server itself tells: asked for a path that cannot exist (a sibling of the operation's path:
 * probePath), it answers what it answers for any path it does not have. A 404 that reads the
 * same, once each answer is rid of the path it was asked for and of ids, times and numbers, is
 * that answer: the operation's path is not there either. An operation that has answered 2xx is
 * there, whatever its 404s say. One probe per operation, shared by every request waiting for it;
 * a probe that gets no answer decides nothing (the row fails as before) and is tried again by a
 * later 404, up to PROBES times.
 *
 * A 405 needs no probe: the address does not take the method the operation is sent with, for any
 * row; nor does a 501, a server that implements no such request at all (a static file server
 * answers every POST so). Limit: a server that answers an unknown record exactly as an unknown path (an empty 404
 * for both) stops a run whose operation never answered 2xx before it.
 */
import { untilAborted } from './_abort.js';

/** The segment that replaces an operation's last one to ask for a path that cannot exist. */
export const PROBE_SEGMENT = 'geobatch-no-such-path';

/** The longest a probe may take: every request of its operation waits for it. */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * A sibling of the operation's path: its last segment (the operation's name) replaced, not a
 * segment appended. Servers that route `ByIdentifier/{id?}` (ASP.NET) or by prefix (nginx's
 * `location`) answer `ByIdentifier/geobatch-no-such-path` with the operation itself, whose
 * "unknown record" 404 then read as the probe's, and a correct address stopped the run.
 */
export function probePath(path: string): string {
  const slash = path.lastIndexOf('/');
  return `${slash === -1 ? '' : path.slice(0, slash)}/${PROBE_SEGMENT}`;
}

/** Probes of one operation that got no answer before it stops asking. */
const PROBES = 3;

/** A 404, 405 or 501, or the probe's answer. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  /** The path and query it answered, which a body may echo. */
  readonly path: string;
}

/** The probe's verdict: its normalised 404, or NOT_404 when it answered something else. */
type Unknown = string | typeof NOT_404;
const NOT_404 = Symbol('not a 404');

interface Operation {
  /** It answered 2xx (or an answer read as data): its path exists. */
  answered: boolean;
  /** The probe under way, or its verdict once it got an answer. */
  probe: Promise<Unknown | undefined> | undefined;
  probes: number;
  stop: Error | undefined;
}

/** Per operation (method and URL without query): is it there? */
export class Operations {
  readonly #ops = new Map<string, Operation>();

  /** The operation answered: its path exists. */
  answered(key: string): void {
    const op = this.#ops.get(key);
    if (op === undefined) this.#ops.set(key, fresh(true));
    else op.answered = true;
  }

  /** The error an operation found missing stopped the run with: later calls fail with it unsent. */
  stopped(key: string): Error | undefined {
    return this.#ops.get(key)?.stop;
  }

  /**
   * The probe of the operation under way, if any: a request waits for it before it is sent, so that
   * a wrong address is not sent the requests queued while the server is asked.
   */
  pending(key: string): Promise<unknown> | undefined {
    return this.#ops.get(key)?.probe;
  }

  /**
   * The error to stop with when `answer` (a 404, 405 or 501 of operation `key`) says the address has no
   * such operation, else undefined. `probe` sends the operation's request to its path plus
   * PROBE_SEGMENT (undefined: no answer); `stop` makes the error, once for the operation.
   */
  async missing(
    key: string,
    answer: Answer,
    probe: () => Promise<Answer | undefined>,
    stop: () => Error,
    signal: AbortSignal | undefined,
  ): Promise<Error | undefined> {
    const op = this.#of(key);
    if (op.stop !== undefined) return op.stop;
    if (op.answered) return undefined;
    if (answer.status === 405 || answer.status === 501) return stopped(op, stop);
    if (answer.status !== 404) return undefined;
    const own = normalised(answer);
    if (op.probe === undefined) {
      if (op.probes >= PROBES) return undefined;
      op.probes++;
      // Settled before any waiter resumes, so that requests waiting to be sent see the stop.
      const pending: Promise<Unknown | undefined> = probe()
        .then(verdict, () => undefined)
        .then((unknown) => {
          if (unknown === undefined && op.probe === pending) op.probe = undefined;
          else if (unknown === own && !op.answered) stopped(op, stop);
          return unknown;
        });
      op.probe = pending;
    }
    const unknown = await untilAborted(op.probe, signal);
    if (op.answered || typeof unknown !== 'string' || unknown !== own) return undefined;
    return stopped(op, stop);
  }

  #of(key: string): Operation {
    let op = this.#ops.get(key);
    if (op === undefined) {
      op = fresh(false);
      this.#ops.set(key, op);
    }
    return op;
  }
}

/** The operation's stop, made once. */
function stopped(op: Operation, stop: () => Error): Error {
  op.stop ??= stop();
  return op.stop;
}

function fresh(answered: boolean): Operation {
  return { answered, probe: undefined, probes: 0, stop: undefined };
}

/** What the probe's answer says; undefined for an answer that may be passing (408, 429, 5xx). */
function verdict(answer: Answer | undefined): Unknown | undefined {
  if (answer === undefined) return undefined;
  if (answer.status === 404) return normalised(answer);
  if (answer.status === 408 || answer.status === 429 || answer.status >= 500) return undefined;
  return NOT_404;
}

/**
 * An answer's body without what differs from one request to the next: the path (and query) it
 * answered, which bodies echo ("Unbekannter Pfad /wrong/geocode", Spring's `path`), ids and
 * hashes (ASP.NET's `traceId`), numbers and times (`timestamp`), runs of white space.
 */
export function normalised(answer: Answer): string {
  const query = answer.path.indexOf('?');
  const path = query === -1 ? answer.path : answer.path.slice(0, query);
  return (
    answer.text
      .split(answer.path)
      .join('')
      .split(path)
      .join('')
      // A UUID's groups of four would keep their letters (`a567` as `a#`) under the rules below.
      .replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '#')
      .replace(/[0-9a-f]{8,}/gi, '#')
      .replace(/\d+/g, '#')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
