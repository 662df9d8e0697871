/** Phone numbers in canonical E.164 form, whatever form people type them in. */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * Returns the E.164 form (`+39...`) of a phone typed in any format, or null when it is
 * not a possible phone number. Numbers without a country prefix are read in `region`.
 * A leading `00` is the international prefix.
 */
export function toCanonicalPhone(input: string, region: CountryCode): string | null {
  const trimmed = input.trim().replace(/^00(?=\d)/, '+');
  if (!/\d/.test(trimmed)) return null;
  const parsed = parsePhoneNumberFromString(trimmed, region);
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}
