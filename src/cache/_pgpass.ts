/**
 * ~/.pgpass without pg's DeprecationWarning. pg 8 reads ~/.pgpass (or PGPASSFILE) itself when a
 * connection has no password, and then prints "pgpass support is deprecated and will be removed
 * in pg@9.0" on every worker's start; its advice is a password function that reads the file. pg
 * takes `defaults.password` when neither the URL nor PGPASSWORD gives one, that is exactly when
 * it would read the file: this function does so with the same module (pgpass, which pg depends
 * on, loaded from pg's own place), so what ~/.pgpass gives is unchanged and nothing is printed.
 */
import { createRequire } from 'node:module';
import pg from 'pg';

type Lookup = (connection: unknown, done: (password: string | undefined) => void) => void;

/** pgpass as pg resolves it; undefined if a later pg no longer brings it. */
function pgpassModule(): Lookup | undefined {
  try {
    const fromHere = createRequire(import.meta.url);
    return createRequire(fromHere.resolve('pg'))('pgpass') as Lookup;
  } catch {
    return undefined;
  }
}

let installed = false;

/** Makes pg read ~/.pgpass through `defaults.password`; once per process. */
export function quietPgpass(): void {
  if (installed) return;
  installed = true;
  const lookup = pgpassModule();
  if (lookup === undefined) return;
  // pg calls it with the connection's parameters (host, port, database, user), as it called pgpass.
  const password = (connection: unknown) =>
    new Promise<string | undefined>((resolve) => lookup(connection, resolve));
  pg.defaults.password = password as unknown as () => Promise<string>;
}
