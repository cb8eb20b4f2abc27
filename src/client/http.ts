/**
 * One HTTP request over a keep-alive pool, and nothing else: no retry, no auth, no parsing.
 *
 * Transient failures (connection errors, timeouts) are returned as values, not thrown: they are
 * the common case under load, and the retry policy wants them as data. Only an abort by the
 * caller throws, because nothing should handle that but the caller.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { RunError } from '../errors.js';
import { abortError } from './_abort.js';
import { ABANDONED, type Abortable, type AbortTarget, Deadlines, TIMED_OUT } from './_deadline.js';
import { Agent, type Dispatcher } from './_undici.js';

export interface HttpRequest {
  /** `http://host:port`, no trailing slash. */
  readonly origin: string;
  /** Path and query string. */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface HttpResponse {
  readonly ok: true;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface HttpFailure {
  readonly ok: false;
  readonly kind: 'network' | 'timeout';
  /** `ECONNRESET`, `UND_ERR_SOCKET`, `ECONNREFUSED`... as the socket layer named it. */
  readonly code: string;
}

/** How long one attempt may take, and what to do when it is slow. */
export interface AttemptOptions {
  /** Deadline of the whole exchange, headers and body. @default the client's `timeoutMs` */
  readonly timeoutMs?: number;
  /**
   * Called once when no answer came within `slowMs`, with a function that abandons the attempt
   * (it then resolves as a `network` failure with code `ABANDONED`): the hook of a hedge.
   */
  readonly slowMs?: number;
  readonly onSlow?: (abandon: () => void) => void;
  /** Told when the request is written to a socket (see WireState). */
  readonly wire?: WireState;
}

/**
 * Whether an attempt left: `written` is set when undici writes the request to a socket. Until then
 * it waits in the pool for a connection, and an abort (a hedge abandoned because the first attempt
 * answered, a stop) drops it unsent: the service never sees it, and counting it made a run's
 * request count exceed the service's.
 */
export interface WireState {
  written: boolean;
}

export interface Http {
  send(
    request: HttpRequest,
    signal?: AbortSignal,
    attempt?: AttemptOptions,
  ): Promise<HttpResponse | HttpFailure>;
  close(): Promise<void>;
}

export interface HttpOptions {
  /** Connections per origin; sized to the client's concurrency so no request queues in undici. */
  readonly connections: number;
  /**
   * The longest an attempt may take, headers and body together (checked every tenth of an
   * attempt's deadline, 5 ms to 1 s), and the deadline of an attempt that names none.
   */
  readonly timeoutMs: number;
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'UNKNOWN';
}

/** Creates a pool-backed sender; `close()` ends its keep-alive sockets. */
export function createHttp(options: HttpOptions): Http {
  const { timeoutMs } = options;
  const agent = new Agent({
    connections: options.connections,
    pipelining: 1,
    // Backstops only: the deadline below is what bounds an attempt.
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  const deadlines = new Deadlines();

  async function send(
    request: HttpRequest,
    signal?: AbortSignal,
    attempt: AttemptOptions = {},
  ): Promise<HttpResponse | HttpFailure> {
    if (signal?.aborted) throw abortError(signal);
    const handle = deadlines.start(signal, attempt.timeoutMs ?? timeoutMs, attempt.slowMs, attempt.onSlow);
    try {
      return await exchange(agent, request, handle, attempt.wire);
    } catch (error) {
      if (handle.reason === TIMED_OUT) return { ok: false, kind: 'timeout', code: 'TIMEOUT' };
      if (handle.reason === ABANDONED) return { ok: false, kind: 'network', code: 'ABANDONED' };
      if (signal?.aborted) throw abortError(signal);
      const code = failureCode(error);
      // A request undici refuses to send is our defect; retrying it would only hide that.
      if (code === 'UND_ERR_INVALID_ARG') {
        throw new RunError('INTERNAL', 'the HTTP layer refused the request', { cause: error });
      }
      return { ok: false, kind: TIMEOUT_CODES.has(code) ? 'timeout' : 'network', code };
    } finally {
      deadlines.finish(handle);
    }
  }

  // destroy, not close: close waits for requests in flight (up to timeoutMs); a closed client's
  // calls end at once, as ABORTED (transport.ts), and no socket keeps the process alive.
  return { send, close: () => agent.destroy() };
}

/**
 * One request through undici's `dispatch`, its body gathered into a string. `request()` would
 * wrap every answer in a Readable stream only for `text()` to read it back: about 11 µs of CPU a
 * request (1.72 against 1.50 s of CPU for 20,000 geocoding requests to the emulator, means of 3,
 * alternated), which a run of small answers pays on every row. An abort of `handle` ends the
 * exchange at once, whether it is still queued in the pool or already on a socket.
 */
function exchange(
  agent: Dispatcher,
  request: HttpRequest,
  handle: Abortable,
  wire: WireState | undefined,
): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    if (handle.aborted) {
      reject(handle.reason);
      return;
    }
    agent.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
      },
      new Collector(handle, resolve, reject, wire),
    );
  });
}

const BOM = [0xef, 0xbb, 0xbf] as const;

/** The dispatch handler of one exchange: status, headers and body chunks, settled once. */
class Collector implements Dispatcher.DispatchHandler, AbortTarget {
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;

  constructor(
    private readonly handle: Abortable,
    private readonly resolve: (answer: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly wire: WireState | undefined,
  ) {
    handle.target = this;
  }

  /**
   * An abort before undici starts the request (queued behind busy sockets) settles now; the
   * request is then cancelled when it reaches onRequestStart.
   */
  attemptAborted(reason: unknown): void {
    this.#fail(reason);
    this.#controller?.abort(abortReason(reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(abortReason(this.handle.reason));
    // undici writes the request to its socket as soon as this returns (client-h1.js, writeH1).
    else if (this.wire !== undefined) this.wire.written = true;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    // A 1xx comes before the answer's own status line: keep only the last.
    this.#status = status;
    this.#headers = headers;
    this.#chunks = [];
    this.#bytes = 0;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.handle.target = undefined;
    this.resolve({
      ok: true,
      status: this.#status,
      headers: this.#headers,
      text: decode(this.#chunks, this.#bytes),
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.handle.target = undefined;
    this.reject(error);
  }
}

/** What undici is told when an attempt is aborted; the caller tells the reasons apart by the handle. */
function abortReason(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error('the attempt was aborted');
}

/** The body as UTF-8 text, a leading byte order mark dropped (as undici's `text()` does). */
function decode(chunks: readonly Buffer[], bytes: number): string {
  if (bytes === 0) return '';
  const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes);
  const start = bytes >= 3 && body[0] === BOM[0] && body[1] === BOM[1] && body[2] === BOM[2] ? 3 : 0;
  return body.toString('utf8', start, bytes);
}
