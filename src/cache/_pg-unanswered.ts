/**
 * pg settings for a PostgreSQL that stops answering (a frozen host, a network that drops packets):
 * it refuses nothing and answers nothing. Without them a query waited for it forever, and so did
 * a connection being closed: pg says goodbye and waits for the server to close its side, and that
 * socket kept the process alive, its work done and its message printed, until the server came
 * back. The queue's pools (pg-boss's too) and the shared cache's use them.
 */
import { Socket } from 'node:net';

/** How long a new connection waits for the server's first answer. */
const CONNECT_MS = 10_000;
/** How long a connection that said goodbye waits for the server to close its side. */
const GOODBYE_MS = 5000;
/** How long closing waits for a pool's connections to end. */
const CLOSE_MS = 5000;

export interface Unanswered {
  readonly connectionTimeoutMillis: number;
  readonly query_timeout: number;
  readonly keepAlive: boolean;
  readonly stream: () => Socket;
}

/**
 * The sockets of the pools that share them, for an owner that ends them when it closes: queries
 * still waiting on a frozen database (pg-boss's among them, whose own stop may not get as far as
 * its pool) held the process for their timeouts, and each failure let the pool's next waiter
 * open a connection of its own.
 */
export class PgSockets {
  readonly #open = new Set<Socket>();
  #ended = false;
  #reason: () => Error = aborted;

  /** pg's `stream` option. */
  readonly stream = (): Socket => {
    const socket = closingSocket();
    // Ended: a connection opened now fails at once, so that the waiters behind it fail too.
    if (this.#ended) setImmediate(() => socket.destroy(this.#reason()));
    else {
      this.#open.add(socket);
      socket.once('close', () => this.#open.delete(socket));
    }
    return socket;
  };

  /**
   * Destroys every socket, and each one made from now on; what waits on them fails with `reason`
   * (by default, a connection given up as the process stops).
   */
  end(reason: () => Error = aborted): void {
    this.#ended = true;
    this.#reason = reason;
    for (const socket of this.#open) socket.destroy(reason());
    this.#open.clear();
  }
}

/** What the queries on an ended connection fail with: a connection given up, as a network error says. */
function aborted(): Error {
  return Object.assign(new Error('geobatch closed the connection as it stopped'), {
    code: 'ECONNABORTED',
  });
}

/**
 * What the queries on a database known not to answer fail with: pg's own words for it, so that
 * they are reported as the timeout they wait for, not as a connection geobatch closed.
 */
export function unansweredElsewhere(): Error {
  return Object.assign(new Error('Query read timeout (met by an earlier query of this process)'), {
    code: 'ECONNABORTED',
  });
}

/** A query unanswered for `queryTimeoutMs` fails; pg reports it as "Query read timeout". */
export function unanswered(queryTimeoutMs = 30_000, sockets?: PgSockets): Unanswered {
  return {
    connectionTimeoutMillis: CONNECT_MS,
    query_timeout: queryTimeoutMs,
    // The kernel then notices a peer gone without a word, for connections idle between queries.
    keepAlive: true,
    stream: sockets?.stream ?? closingSocket,
  };
}

/** A socket that, once its side is closed, is destroyed when the server's side does not follow. */
function closingSocket(): Socket {
  const socket = new Socket();
  socket.once('finish', () => {
    const timer = setTimeout(() => socket.destroy(), GOODBYE_MS);
    // The socket itself holds the process until then; the timer need not.
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
  return socket;
}

/** Ends `pool`, waiting at most CLOSE_MS for its connections, then ends what is left of `sockets`. */
export async function closePool(pool: { end(): Promise<void> }, sockets: PgSockets): Promise<void> {
  await bounded(pool.end());
  sockets.end();
}

/**
 * Ends a pool whose first connection failed, its sockets first: pg leaves the socket of a
 * connection whose authentication threw open (SCRAM asked for a password none was given for:
 * "client password must be a string"), and the server closes it only after its
 * authentication_timeout, a minute in which every command that had said why it failed hung.
 */
export async function closeFailed(pool: { end(): Promise<void> }, sockets: PgSockets): Promise<void> {
  sockets.end();
  await bounded(pool.end());
}

/** Waits for `closing` at most CLOSE_MS. */
export async function bounded(closing: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_MS);
    timer.unref();
  });
  await Promise.race([closing.catch(() => {}), late]);
  clearTimeout(timer);
}
