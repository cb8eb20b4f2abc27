import { describe, expect, it } from 'vitest';
import { Lateness } from '../../src/emulator/_lateness.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { useEmulator } from './_helpers.js';

/** Milliseconds the emulator's own work takes for the next request (a busy wait in its request hook). */
let workMs = 0;
const emulator = useEmulator({
  onRequest: () => {
    const until = performance.now() + workMs;
    while (performance.now() < until);
  },
});

async function held(e: EmulatorHandle): Promise<number> {
  const res = await fetch(
    `${e.urls.elevation}/api/v2/Elevation/point?apiKey=${e.credentials.apiKey}&latitude=50.5&longitude=10.5`,
  );
  expect(res.status).toBe(200);
  const entry = e.requestLog().at(-1);
  return entry?.heldMs ?? 0;
}

describe("the emulator's latency", () => {
  it('counts from the request’s arrival, the emulator’s own work included', async () => {
    const e = emulator();
    // The first answer loads the elevation data (over 100 ms on a slow machine), on top of any latency.
    await held(e);
    e.setFaults({ latency: { fixedMs: 150 } });
    workMs = 150;
    try {
      // Added on top, as before, it would be 300 ms and more.
      const ms = await held(e);
      expect(ms).toBeGreaterThanOrEqual(148);
      expect(ms).toBeLessThan(250);
    } finally {
      workMs = 0;
      e.setFaults({});
    }
  });

  it('adds nothing when the work takes longer than the latency', async () => {
    const e = emulator();
    e.setFaults({ latency: { fixedMs: 50 } });
    workMs = 200;
    try {
      const ms = await held(e);
      expect(ms).toBeGreaterThanOrEqual(198);
      expect(ms).toBeLessThan(240);
    } finally {
      workMs = 0;
      e.setFaults({});
    }
  });
});

describe('Lateness', () => {
  it('learns how late timers fire and asks for that much less', () => {
    const lateness = new Lateness();
    expect(lateness.wait(20)).toBe(20);
    // Timers that fire 0.6 ms after what they were asked for.
    for (let i = 0; i < 300; i++) lateness.fired(20, lateness.wait(20) + 0.6);
    expect(lateness.ms).toBeCloseTo(0.6, 1);
    expect(lateness.wait(20)).toBe(19.4);
  });

  it('takes a single stall for little, and never more than 2 ms', () => {
    const lateness = new Lateness();
    lateness.fired(20, 21);
    expect(lateness.ms).toBeCloseTo(0.05, 5);
    lateness.fired(20, 1020);
    expect(lateness.ms).toBe(2);
    expect(lateness.wait(20)).toBe(18);
  });

  it('asks for more when timers fire early, never more than 2 ms either way', () => {
    const lateness = new Lateness();
    // Timers that fire 0.4 ms before what they were asked for (a loop turn begun long ago).
    for (let i = 0; i < 300; i++) lateness.fired(20, lateness.wait(20) - 0.4);
    expect(lateness.ms).toBeCloseTo(-0.4, 1);
    expect(lateness.wait(20)).toBe(20.4);
    for (let i = 0; i < 100; i++) lateness.fired(20, 15);
    expect(lateness.ms).toBe(-2);
    expect(lateness.wait(20)).toBe(22);
  });

  it('never asks a timer for less than nothing', () => {
    const lateness = new Lateness();
    for (let i = 0; i < 100; i++) lateness.fired(20, 25);
    expect(lateness.wait(0.5)).toBe(0);
    // Short waits are not shortened by more than they last.
    lateness.fired(0.5, 10);
    expect(lateness.ms).toBeLessThanOrEqual(0.5);
  });
});
