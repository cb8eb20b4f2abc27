/**
 * Progress on standard error. On a terminal: a bar on the status line, redrawn a few times a
 * second, with log lines printed above it (see status-line.ts). Anywhere else (a pipe, a file, a
 * cron mail): a JSON progress record through the logger at an interval, since carriage returns
 * make no sense there. The row total is an estimate from the share of bytes consumed, as counting
 * rows would mean reading the input twice.
 */
import type { Logger } from 'pino';
import { createStatusLine, type StatusLine } from './status-line.js';

export interface ProgressSnapshot {
  /** Rows written so far (earlier sessions included). */
  readonly rowsDone: number;
  /** Rows read so far (earlier sessions included); ahead of rowsDone by the rows in flight. */
  readonly rowsRead: number;
  readonly rowsFailed: number;
  readonly requests: number;
  readonly bytesRead: number;
  readonly bytesTotal: number | undefined;
  /** The most rows the run can have (`--limit`, `--sample`); caps the estimated total. */
  readonly rowsCap?: number;
}

export interface ProgressOptions {
  /** Show progress at all. @default true */
  enabled?: boolean;
  /** Milliseconds between progress records when not on a terminal. @default 5000 */
  intervalMs?: number;
  /** Where progress goes: a TTY gets a bar, anything else progress records. @default process.stderr */
  stream?: NodeJS.WriteStream;
  /**
   * The terminal's status line, shared with whatever else prints there (the CLI's log lines), so
   * that their lines go above the bar. Without it a TTY stream gets a status line of its own.
   */
  statusLine?: StatusLine;
}

export interface Progress {
  stop(): void;
}

/** Often enough to look alive, rarely enough to cost nothing. */
const REDRAW_MS = 250;
const DEFAULT_INTERVAL_MS = 5000;
const BAR_WIDTH = 20;

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
  const estimate = estimateTotal(now);
  const etaSeconds =
    estimate !== undefined && rowsPerSecond > 0 ? (estimate - now.rowsDone) / rowsPerSecond : undefined;
  return { rowsPerSecond, requestsPerSecond, estimatedTotalRows: estimate, etaSeconds };
}

function estimateTotal(now: ProgressSnapshot): number | undefined {
  const cap = now.rowsCap ?? Number.POSITIVE_INFINITY;
  // Once the cap's rows are read, the total is known whatever the bytes say.
  if (now.rowsRead >= cap) return cap;
  if (now.bytesTotal === undefined || now.bytesRead === 0 || now.rowsRead === 0) return undefined;
  const share = Math.min(now.bytesRead / Math.max(now.bytesTotal, 1), 1);
  const scaled = Math.max(Math.round(now.rowsRead / share), now.rowsRead, now.rowsDone);
  return Math.min(scaled, cap);
}

/**
 * The JSON progress record written off a terminal (documented in the README): every key always
 * present, `null` where there is no estimate yet.
 */
export function progressRecord(now: ProgressSnapshot, start: ProgressSnapshot, elapsedMs: number) {
  const r = rates(now, start, elapsedMs);
  const total = r.estimatedTotalRows ?? null;
  return {
    event: 'progress' as const,
    rowsDone: now.rowsDone,
    rowsRead: now.rowsRead,
    rowsFailed: now.rowsFailed,
    rowsTotal: total,
    percent: total === null || total === 0 ? null : Math.min(100, Math.floor((now.rowsDone / total) * 100)),
    requests: now.requests,
    rowsPerSecond: Math.round(r.rowsPerSecond),
    requestsPerSecond: Math.round(r.requestsPerSecond * 10) / 10,
    elapsedSeconds: Math.round(elapsedMs / 1000),
    etaSeconds: r.etaSeconds === undefined ? null : Math.round(r.etaSeconds),
  };
}

/** The bar's text: a gauge when a total is known, counts and rates always. */
export function barText(now: ProgressSnapshot, start: ProgressSnapshot, elapsedMs: number): string {
  if (now.rowsRead === 0 && now.bytesRead > 0 && now.bytesTotal !== undefined && now.bytesTotal > 0) {
    // Nothing handed on yet: a sample reads the whole input first, a big header takes a moment.
    const share = Math.min(now.bytesRead / now.bytesTotal, 1);
    return `reading input ${Math.floor(share * 100)}% of ${megabytes(now.bytesTotal)}`;
  }
  const r = rates(now, start, elapsedMs);
  const tail = `${Math.round(r.rowsPerSecond)} rows/s · ${Math.round(r.requestsPerSecond)} req/s · ${now.rowsFailed} failed`;
  const total = r.estimatedTotalRows;
  if (total === undefined || total === 0) return `${now.rowsDone} rows · ${tail}`;
  const share = Math.min(now.rowsDone / total, 1);
  const filled = Math.round(share * BAR_WIDTH);
  const gauge = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const eta = r.etaSeconds === undefined ? '?' : formatSeconds(r.etaSeconds);
  return `${gauge} ${Math.floor(share * 100)}% · ${now.rowsDone}/${total} rows · ${tail} · ETA ${eta}`;
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
  if (options.statusLine !== undefined || stream.isTTY === true) {
    const own = options.statusLine === undefined ? createStatusLine(stream) : undefined;
    const line = options.statusLine ?? (own as StatusLine);
    const draw = () => line.status(barText(snapshot(), first, Date.now() - started));
    draw();
    const timer = setInterval(draw, REDRAW_MS);
    timer.unref();
    return {
      stop() {
        clearInterval(timer);
        // The summary that follows says where the run ended: the bar goes, the terminal is clean.
        if (own === undefined) line.clear();
        else own.dispose();
      },
    };
  }
  const timer = setInterval(() => {
    logger.info(progressRecord(snapshot(), first, Date.now() - started), 'progress');
  }, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
}

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
