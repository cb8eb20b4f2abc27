/**
 * A rough size in bytes of a value held in memory, for the byte budgets of the dedup cache and the
 * reorder window. It counts what V8 keeps for the usual shapes (headers, property slots, string
 * characters), not exactly: a budget needs the right order of magnitude at a few nanoseconds a
 * field, not a heap walk. Deep or cyclic values are cut off at a depth and counted as one object.
 */
const OBJECT = 24;
const SLOT = 8;
const STRING = 16;
const MAX_DEPTH = 6;

export function estimateBytes(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return STRING + value.length;
    case 'number':
    case 'boolean':
    case 'undefined':
      return SLOT;
    case 'object': {
      if (value === null) return SLOT;
      if (depth >= MAX_DEPTH) return OBJECT;
      if (Array.isArray(value)) {
        let size = OBJECT + SLOT * value.length;
        // Indexed, not for-of: an iterator per array adds up over every row's fields and records.
        for (let i = 0; i < value.length; i++) size += estimateBytes(value[i], depth + 1);
        return size;
      }
      let size = OBJECT;
      for (const key in value)
        size += SLOT + estimateBytes((value as Record<string, unknown>)[key], depth + 1);
      return size;
    }
    default:
      return SLOT;
  }
}
