/**
 * German postcodes lose their leading zero in spreadsheets (01067 -> 1067): a four-digit code
 * where a whole German postcode belongs is that code, restored, in every job that sends one.
 */

/** A country cell that names Germany, or none (the service's default country). */
export function germanOrUnset(country: string | undefined): boolean {
  return country === undefined || /^(de|d|deu|germany|deutschland)$/i.test(country);
}

/** `zip` with a lost leading zero put back when it has four digits; anything else as it is. */
export function restoredZip(zip: string): string {
  return /^\d{4}$/.test(zip) ? `0${zip}` : zip;
}
