/**
 * A reader that closes its end of geobatch's standard output or error before geobatch is done
 * (`geobatch validate job.yaml | head -1`, `geobatch --help | head`, a pager quit early) made the
 * next write fail with EPIPE, and Node ended the process on the unhandled 'error' with a stack
 * trace. A command line says nothing then, as `git log | head` does: what the reader no longer
 * wants is dropped, and the command ends as it would have, with its own exit status (a run goes on
 * to its end: its outputs are files, and its status tells how it went).
 *
 * An output sink writing the data to standard output (`run -o -`) listens on the stream itself and
 * ends the run as OUTPUT_CLOSED (src/output/_sink.ts); any other error on these streams, which
 * nothing else listens for, is raised as Node raises it without a listener.
 *
 * Kept apart, like _early-signals.ts, so that the entry point installs it before anything heavy.
 */

/** Listens for the rest of the process; `streams` for tests. */
export function quietOnBrokenPipe(
  streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // The stream is destroyed by now: later writes to it are dropped without another event.
      // EIO: the terminal itself went away (a window closed, an SSH session dropped), and the
      // SIGHUP that came with it stops the run the orderly way, its files written, if its words
      // to the gone terminal do not end the process first.
      if (error.code === 'EPIPE' || error.code === 'EIO') return;
      if (stream.listenerCount('error') > 1) return;
      throw error;
    });
  }
}
