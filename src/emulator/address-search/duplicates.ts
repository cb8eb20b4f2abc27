/**
 * EMULATOR CHOICE: a few supplier keys deliberately answer two records (the supplier delivered one
 * customer twice), so that a customer-lookup job's "several records for one key" policy can be
 * tested. Each entry: the shared key, and the record (by its own natural key) that also carries it.
 */
const TWINS: Readonly<Record<string, string>> = {
  // Agentur für Arbeit Karlsruhe, 76125 (twin of 76089)
  GN0680470595: 'GN0288116364',
  // Deutsche Postbank AG Niederlassung Karlsruhe, 76127 (twin of 76118)
  GN0500488139: 'GN0675820505',
  // Postbeamtenkrankenkasse, Stuttgart 70644 (twin of 70467)
  GN0370683774: 'GN0211197589',
  // Agentur für Arbeit Mannheim, 68156 (twin of 68150)
  GN0811593640: 'GN0190409754',
};

/** Supplier keys (ProviderForeignKey) that ByCustomerId answers with two records each. */
export const DUPLICATE_CUSTOMER_IDS: readonly string[] = Object.values(TWINS);

/** The shared key a record carries instead of its own, if it is a twin. */
export function duplicateOf(naturalKey: string): string | undefined {
  return TWINS[naturalKey];
}
