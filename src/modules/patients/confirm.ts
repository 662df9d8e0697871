/**
 * Confirming who a caller is (issue 37): a name alone never identifies a patient (people who
 * are not patients get close hits, one letter away from a real patient), so the search takes
 * second details the caller can say (date or year of birth, the phone's last digits, the tax
 * code) and tells, per hit, which of them the patient matches, and whether exactly one
 * patient the query found matches every detail sent: `confirmed`. Several patients matching
 * (two Rossi born in 1980) is not a confirmation: the agent asks for another detail.
 */
import type { Db } from '../../db/transaction.js';
import { normalizeTaxCode } from './normalize.js';
import type { ConfirmingDetail, PatientSearchQuery } from './schema.js';
import { detailRows } from './search-store.js';

export type Details = Pick<PatientSearchQuery, 'birthDate' | 'birthYear' | 'phoneLast' | 'taxCode'>;

interface DetailRow {
  id: string;
  date_of_birth: string | null;
  phone: string | null;
  tax_code_norm: string | null;
}

/** The second details sent, in the closed list's order. */
export function detailsSent(details: Details): ConfirmingDetail[] {
  const sent: ConfirmingDetail[] = [];
  if (details.birthDate !== undefined) sent.push('birthDate');
  if (details.birthYear !== undefined) sent.push('birthYear');
  if (details.phoneLast !== undefined) sent.push('phoneLast');
  if (details.taxCode !== undefined) sent.push('taxCode');
  return sent;
}

/** Which of the details sent a patient's record matches (a missing field matches nothing). */
export function detailsMatched(row: Omit<DetailRow, 'id'>, details: Details): ConfirmingDetail[] {
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

/** The details each candidate matches: one read by primary key of the candidates found. */
export async function matchDetails(db: Db, clinicId: string, ids: string[], details: Details): Promise<Map<string, ConfirmingDetail[]>> {
  const rows = ids.length === 0 ? [] : await detailRows(db, clinicId, ids);
  return new Map(rows.map((r) => [r.id, detailsMatched(r as DetailRow, details)]));
}

/**
 * The confirmation of a search: the one candidate matching every detail sent, if there is
 * exactly one (none sent, none or several matching: not confirmed).
 */
export function confirmation(
  matched: Map<string, ConfirmingDetail[]>,
  sent: ConfirmingDetail[],
): { patientId: string | null; confirmedBy: ConfirmingDetail[] } {
  if (sent.length === 0) return { patientId: null, confirmedBy: [] };
  const full = [...matched].filter(([, m]) => m.length === sent.length);
  return full.length === 1 ? { patientId: full[0]![0], confirmedBy: sent } : { patientId: null, confirmedBy: [] };
}
