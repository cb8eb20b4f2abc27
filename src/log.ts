/**
 * The project's logger: pino, JSON lines to stderr (or a file), with two layers against leaks.
 *
 * 1. `redact` paths blank the fields that hold credentials by name (apiKey, securityID, tokens,
 *    Authorization headers), whatever their value, registered or not.
 * 2. Every serialized line then passes through `scrub`, which replaces each registered secret by
 *    value: this is what catches a key inside a URL, an error message or a library's text.
 * URLs should still be logged through `redactUrl`, which also masks unregistered key parameters.
 */
import type { DestinationStream, Level, Logger } from 'pino';
import { pino } from 'pino';
import { scrub } from './secrets.js';

export type { Logger };

export interface LoggerOptions {
  /** @default 'info' */
  level?: Level | 'silent';
  /** A file path, a file descriptor, or a stream. @default 2 (stderr, so stdout stays data) */
  destination?: string | number | DestinationStream;
  /** Added to every line as `name`. @default 'geobatch' */
  name?: string;
}

const SECRET_FIELDS = [
  'apiKey',
  'systemPartner',
  'securityID',
  'partnerKey',
  'password',
  'token',
  'AuthToken',
  'authorization',
  'Authorization',
  'credentials',
];

/** Field paths whose values never reach a log line, at the top level, one level down and in headers. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  'headers.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'request.headers.authorization',
];

const CENSOR = '[redacted]';

/** Creates a logger with redaction on; see the module comment for what is and is not covered. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 2;
  const stream =
    typeof destination === 'object'
      ? destination
      : // Synchronous: a fatal error's last line must reach the file before the process exits.
        pino.destination({
          dest: destination,
          sync: true,
          ...(typeof destination === 'string' ? { mkdir: true } : {}),
        });
  return pino(
    {
      name: options.name ?? 'geobatch',
      level: options.level ?? 'info',
      redact: { paths: [...REDACT_PATHS], censor: CENSOR },
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: scrub },
    },
    stream,
  );
}
