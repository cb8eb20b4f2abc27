/** Peak resident memory of the run, sampled: the summary reports it, benchmarks compare it. */

export interface MemorySampler {
  peakRss(): number;
  stop(): void;
}

/** Samples RSS every `intervalMs` (default 1000). The timer does not keep the process alive. */
export function sampleMemory(intervalMs = 1000): MemorySampler {
  let peak = process.memoryUsage.rss();
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    peakRss: () => {
      sample();
      return peak;
    },
    stop: () => clearInterval(timer),
  };
}
