/**
 * The service's JSON shapes: what goes over the wire, shared by the client and the emulator,
 * one file per interface. Neither side imports the other; both import this.
 *
 * Request bodies are plain TypeScript types (we build them). Responses are zod schemas (we must
 * check them at the boundary) with their inferred types, which the emulator uses to build answers.
 * Fields the client does not need are optional here, so that a real service omitting them is not
 * an error; the emulator still sends them all.
 *
 * Where the spec says "Not shown", the shape chosen for the emulator is marked EMULATOR CHOICE, is
 * documented in the README's emulator section, and the client also accepts the plausible variants
 * (see the `normalize*` helpers in the client's per-interface modules).
 */

export * from './address-search.js';
export * from './area.js';
export * from './autocomplete.js';
export * from './common.js';
export * from './elevation.js';
export * from './geocoding.js';
export * from './routing.js';
