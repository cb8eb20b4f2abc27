/**
 * One HTTP request over a keep-alive pool, and nothing else: no retry, no auth, no parsing.
 *
 * Transient failures (connection errors, timeouts) are returned as values, not thrown: they are
 * the common case under load, and the retry policy wants them as data. Only an abort by the
 * caller throws, because nothing should handle that but the caller.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent } from 'undici';
import { RunError } from '../errors.js';
import { abortError } from './_abort.js';
import { ABANDONED, Deadlines, TIMED_OUT } from './_deadline.js';

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
      const res = await agent.request({
        origin: request.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: handle,
      });
      const text = await res.body.text();
      return { ok: true, status: res.statusCode, headers: res.headers, text };
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

  return { send, close: () => agent.close() };
}
