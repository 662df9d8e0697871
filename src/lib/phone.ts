/** Phone numbers in canonical E.164 form, whatever form people type them in. */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** An ISO 3166 country code libphonenumber knows (`IT`), as the actor carries it (src/core imports no library). */
export type PhoneRegion = string;

/** What a phone is typed with: digits, spaces, `+ ( ) . / -`. */
const TYPED_PHONE = '[+0-9 ()./-]*';

/** What a phone field accepts as typed: its E.164 form is read by toCanonicalPhone. */
export const PHONE_PATTERN = `^${TYPED_PHONE}$`;

/** A caller's number as telephony reports it: a phone as typed, or `anonymous` in any case (a hidden number). */
export const CALLER_NUMBER_PATTERN = `^([Aa][Nn][Oo][Nn][Yy][Mm][Oo][Uu][Ss]|${TYPED_PHONE})$`;

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
