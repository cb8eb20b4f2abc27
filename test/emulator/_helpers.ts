/** Shared set-up for the emulator tests: one emulator per file, on 127.0.0.1 port 0. */
import { afterAll, beforeAll } from 'vitest';
import type { EmulatorHandle, EmulatorOptions } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';

/** Starts an emulator for the file's tests; `get()` returns it inside tests. */
export function useEmulator(options: EmulatorOptions = {}): () => EmulatorHandle {
  let handle: EmulatorHandle | undefined;
  beforeAll(async () => {
    handle = await startEmulator(options);
  });
  afterAll(async () => {
    await handle?.close();
  });
  return () => {
    if (!handle) throw new Error('emulator not started');
    return handle;
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parse(text) };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parse(text) };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests read deep into JSON answers
export type Json = any;
