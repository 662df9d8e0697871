/**
 * Confirming who a caller is: a name alone never identifies a patient (people who
 * are not patients get close hits, one letter away from a real patient), so the search takes
 * second details the caller can say (date or year of birth, the phone's last digits, the tax
 * code) and tells, per hit, which of them the patient matches, and whether exactly one
 * patient the query found matches every detail sent, with details strong enough: `confirmed`.
 * Several patients matching (two Rossi born in 1980) is not a confirmation: the agent asks for
 * another detail.
 *
 * Strength. `birthDate`, `phoneLast` and `taxCode` confirm alone. A birth year does not: among
 * many near names one is often born that year (an outside run over a 100,000-patient clinic
 * confirmed a stranger saying a near name and a year as someone else about 1 time in 5). It
 * confirms alone only when the name said is the patient's own registered name (ownName), or
 * together with another detail: one sent, or the query itself being the patient's full phone
 * or email (a phone or an email alone is not a confirmation: families share them). A query
 * that is a tax code counts as the `taxCode` detail (it is one person's).
 */
import type { Db } from '../../db/transaction.js';
import { normalizeTaxCode } from './normalize.js';
import type { ConfirmingDetail, PatientSearchQuery, SearchHit } from './schema.js';
import { detailRows } from './search-store.js';

type Details = Pick<PatientSearchQuery, 'birthDate' | 'birthYear' | 'phoneLast' | 'taxCode'>;

/** The details that confirm a patient alone; `birthYear` only together with something else. */
const CONFIRMING_ALONE: readonly ConfirmingDetail[] = ['birthDate', 'phoneLast', 'taxCode'];

interface DetailRow {
  id: string;
  date_of_birth: string | null;
  phone: string | null;
  tax_code_norm: string | null;
  first_norm: string | null;
  last_norm: string | null;
}

/** What a candidate matches: the details (in the closed list's order) and whether the name said is its own. */
export interface DetailMatch {
  details: ConfirmingDetail[];
  ownName: boolean;
}

/** The second details sent, in the closed list's order. */
function detailsSent(details: Details): ConfirmingDetail[] {
  const sent: ConfirmingDetail[] = [];
  if (details.birthDate !== undefined) sent.push('birthDate');
  if (details.birthYear !== undefined) sent.push('birthYear');
  if (details.phoneLast !== undefined) sent.push('phoneLast');
  if (details.taxCode !== undefined) sent.push('taxCode');
  return sent;
}

/** Which of the details sent a patient's record matches (a missing field matches nothing). */
function detailsMatched(row: Pick<DetailRow, 'date_of_birth' | 'phone' | 'tax_code_norm'>, details: Details): ConfirmingDetail[] {
  const dob = row.date_of_birth?.slice(0, 10) ?? null;
  const phoneDigits = row.phone?.replace(/\D/g, '') ?? '';
  const taxCode = normalizeTaxCode(details.taxCode);
  return detailsSent(details).filter((d) => {
    switch (d) {
      case 'birthDate':
        return dob !== null && dob === details.birthDate;
      case 'birthYear':
        return dob !== null && Number(dob.slice(0, 4)) === details.birthYear;
      case 'phoneLast':
        return phoneDigits.length > 0 && phoneDigits.endsWith(details.phoneLast!);
      case 'taxCode':
        return row.tax_code_norm !== null && row.tax_code_norm === taxCode;
    }
  });
}

/**
 * Whether the name said (its normalized words, the birth year dropped) is the patient's own
 * registered name: equal in any word order ("rossi giulia"), or once spaces are dropped with
 * the first name before or after the last ("gianluca" for "gian luca"). A nickname or a near
 * name is not their own.
 */
export function isOwnName(words: readonly string[], first: string | null, last: string | null): boolean {
  if (words.length === 0 || !first || !last) return false;
  const sorted = (w: readonly string[]) => [...w].sort().join(' ');
  if (sorted(words) === sorted(`${first} ${last}`.split(' '))) return true;
  const bare = words.join('');
  const f = first.replace(/ /g, '');
  const l = last.replace(/ /g, '');
  return bare === f + l || bare === l + f;
}

/** How the query itself was matched: by a tax code, a phone or an email, or by a name. */
type FoundBy = SearchHit['matchedBy'];

/**
 * The details each candidate matches: one read by primary key of the candidates found. A query
 * that is a tax code is itself the `taxCode` detail of the patients it found (unless a
 * `taxCode` is also sent: then that one is compared).
 */
export async function matchDetails(
  db: Db,
  clinicId: string,
  candidates: ReadonlyMap<string, { matchedBy: FoundBy }>,
  details: Details,
  words: readonly string[],
): Promise<Map<string, DetailMatch>> {
  const ids = [...candidates.keys()];
  const rows = ids.length === 0 ? [] : ((await detailRows(db, clinicId, ids)) as DetailRow[]);
  return new Map(
    rows.map((r) => {
      const matched = detailsMatched(r, details);
      if (candidates.get(r.id)?.matchedBy === 'taxCode' && details.taxCode === undefined) matched.push('taxCode');
      return [r.id, { details: matched, ownName: isOwnName(words, r.first_norm, r.last_norm) }];
    }),
  );
}

/** The details a search stands on: those sent, and `taxCode` when the query was a tax code. */
export function detailsAsked(details: Details, queryIsTaxCode: boolean): ConfirmingDetail[] {
  const sent = detailsSent(details);
  return queryIsTaxCode && !sent.includes('taxCode') ? [...sent, 'taxCode'] : sent;
}

/**
 * The confirmation of a search: the one candidate matching every detail asked, if there is
 * exactly one and its details are strong enough (see the head of this file); none asked, none
 * or several matching, or a birth year alone with a name not the patient's own: not confirmed.
 */
export function confirmation(
  matched: Map<string, DetailMatch>,
  asked: ConfirmingDetail[],
  foundBy: (id: string) => FoundBy | undefined,
): { patientId: string | null; confirmedBy: ConfirmingDetail[] } {
  const none = { patientId: null, confirmedBy: [] };
  if (asked.length === 0) return none;
  const full = [...matched].filter(([, m]) => m.details.length === asked.length);
  if (full.length !== 1) return none;
  const [id, m] = full[0]!;
  const alone = asked.some((d) => CONFIRMING_ALONE.includes(d));
  const by = foundBy(id);
  const together = asked.includes('birthYear') && (m.ownName || by === 'phone' || by === 'email');
  return alone || together ? { patientId: id, confirmedBy: asked } : none;
}

/**
 * What an agent should ask the caller next when the search did not confirm anyone: the details
 * that confirm alone and were not sent. Nothing when the query found nobody (no detail can
 * confirm a patient the name does not find: the caller is a new contact).
 */
export function detailsToAsk(asked: ConfirmingDetail[], candidates: number): ConfirmingDetail[] {
  return candidates === 0 ? [] : CONFIRMING_ALONE.filter((d) => !asked.includes(d));
}
