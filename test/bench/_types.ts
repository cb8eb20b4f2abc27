/** What a scenario gets and what it gives back to the orchestrator. */
import type { BenchEmulator } from './_emulator.js';

export interface BenchContext {
  readonly emulator: BenchEmulator;
  /** A temp dir for generated inputs, job files and outputs; removed at the end. */
  readonly dir: string;
  /** Smaller inputs and single repetitions: a smoke run, not figures to publish. */
  readonly quick: boolean;
  log(message: string): void;
}

export interface Table {
  /** A line above the table, when a scenario shows several. */
  readonly caption?: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface TargetCheck {
  readonly name: string;
  /** As the issue states it, e.g. `>= 0.7`. */
  readonly target: string;
  /** The median and its spread, as shown. */
  readonly measured: string;
  readonly met: boolean;
}

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly tables: readonly Table[];
  readonly targets: readonly TargetCheck[];
  /** How it was measured and what to keep in mind, in a few sentences. */
  readonly notes: readonly string[];
  /** Every measured value, for results.json. */
  readonly raw: unknown;
  readonly seconds?: number;
}
