/** Phone numbers in canonical E.164 form, whatever form people type them in. */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** An ISO 3166 country code libphonenumber knows (`IT`), as the actor carries it (src/core imports no library). */
export type PhoneRegion = string;

/** What a phone field accepts as typed (digits, spaces, `+ ( ) . / -`): its E.164 form is read by toCanonicalPhone. */
export const PHONE_PATTERN = '^[+0-9 ()./-]*$';

/**
 * Returns the E.164 form (`+39...`) of a phone typed in any format, or null when it is
 * not a possible phone number. Numbers without a country prefix are read in `region`.
 * A leading `00` is the international prefix.
 */
export function toCanonicalPhone(input: string, region: PhoneRegion): string | null {
  const trimmed = input.trim().replace(/^00(?=\d)/, '+');
  if (!/\d/.test(trimmed)) return null;
  // The region is checked once, when the configuration is read (DEFAULT_PHONE_REGION).
  const parsed = parsePhoneNumberFromString(trimmed, region as CountryCode);
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}
