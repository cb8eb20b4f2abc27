/**
 * Progress on stderr: a cli-progress bar on a terminal, a pino log line every few seconds
 * otherwise (cron mails and log files want lines, not carriage returns). The row total is an
 * estimate from bytes consumed, as counting rows would mean reading the input twice.
 */
import cliProgress from 'cli-progress';
import type { Logger } from 'pino';

export interface ProgressSnapshot {
  /** Rows written so far (earlier sessions included). */
  readonly rowsDone: number;
  /** Rows read so far (earlier sessions included); ahead of rowsDone by the rows in flight. */
  readonly rowsRead: number;
  readonly rowsFailed: number;
  readonly requests: number;
  readonly bytesRead: number;
  readonly bytesTotal: number | undefined;
}

export interface ProgressOptions {
  /** Show progress at all. @default true */
  enabled?: boolean;
  /** Milliseconds between log lines when not on a terminal. @default 5000 */
  intervalMs?: number;
  /** Where the bar is drawn; a TTY gets a bar, anything else log lines. @default process.stderr */
  stream?: NodeJS.WriteStream;
}

export interface Progress {
  stop(): void;
}

interface Rates {
  readonly rowsPerSecond: number;
  readonly requestsPerSecond: number;
  readonly estimatedTotalRows: number | undefined;
  readonly etaSeconds: number | undefined;
}

/**
 * Rates over this session, and the total/ETA estimated from the share of bytes consumed. The
 * total scales the rows *read* (not done: a small file is read in one chunk while its rows are
 * still in flight), and is exact once the whole input has been read.
 */
export function rates(now: ProgressSnapshot, start: ProgressSnapshot, elapsedMs: number): Rates {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rowsPerSecond = (now.rowsDone - start.rowsDone) / seconds;
  const requestsPerSecond = (now.requests - start.requests) / seconds;
  if (now.bytesTotal === undefined || now.bytesRead === 0 || now.rowsRead === 0) {
    return { rowsPerSecond, requestsPerSecond, estimatedTotalRows: undefined, etaSeconds: undefined };
  }
  const share = Math.min(now.bytesRead / Math.max(now.bytesTotal, 1), 1);
  const estimatedTotalRows = Math.max(Math.round(now.rowsRead / share), now.rowsRead, now.rowsDone);
  const etaSeconds = rowsPerSecond > 0 ? (estimatedTotalRows - now.rowsDone) / rowsPerSecond : undefined;
  return { rowsPerSecond, requestsPerSecond, estimatedTotalRows, etaSeconds };
}

export function startProgress(
  snapshot: () => ProgressSnapshot,
  logger: Logger,
  options: ProgressOptions = {},
): Progress {
  if (options.enabled === false) return { stop() {} };
  const stream = options.stream ?? process.stderr;
  const started = Date.now();
  const first = snapshot();
  if (stream.isTTY) return bar(stream, snapshot, first, started);
  const timer = setInterval(() => {
    const now = snapshot();
    const r = rates(now, first, Date.now() - started);
    logger.info(
      {
        rows: now.rowsDone,
        failed: now.rowsFailed,
        requests: now.requests,
        rowsPerSecond: Math.round(r.rowsPerSecond),
        requestsPerSecond: Math.round(r.requestsPerSecond * 10) / 10,
        estimatedTotalRows: r.estimatedTotalRows,
        etaSeconds: r.etaSeconds === undefined ? undefined : Math.round(r.etaSeconds),
      },
      'progress',
    );
  }, options.intervalMs ?? 5000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function bar(
  stream: NodeJS.WriteStream,
  snapshot: () => ProgressSnapshot,
  first: ProgressSnapshot,
  started: number,
) {
  const withTotal = first.bytesTotal !== undefined;
  const format = withTotal
    ? '{bar} {percentage}% | {value}/{total} rows | {rowRate} rows/s | {requestRate} req/s | {failed} failed | ETA {etaText}'
    : '{value} rows | {rowRate} rows/s | {requestRate} req/s | {failed} failed';
  const progress = new cliProgress.SingleBar(
    { stream, format, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  // A total of 0 would draw as 100% until the first estimate arrives.
  progress.start(Math.max(first.rowsDone, 1), first.rowsDone, {
    rowRate: 0,
    requestRate: 0,
    failed: 0,
    etaText: '?',
  });
  const draw = () => {
    const now = snapshot();
    const r = rates(now, first, Date.now() - started);
    if (r.estimatedTotalRows !== undefined) progress.setTotal(r.estimatedTotalRows);
    progress.update(now.rowsDone, {
      rowRate: Math.round(r.rowsPerSecond),
      requestRate: Math.round(r.requestsPerSecond),
      failed: now.rowsFailed,
      etaText: r.etaSeconds === undefined ? '?' : formatSeconds(r.etaSeconds),
    });
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      draw();
      progress.stop();
    },
  };
}

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
