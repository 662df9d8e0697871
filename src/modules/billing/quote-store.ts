/**
 * The quotes' SQL (treatment plans and their items, the clinic's numbering, the signed
 * document a quote names): rows in, rows out; the rules are quotes.ts'.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { updatedPage } from '../../db/keyset.js';
import type { TreatmentPlanItemsTable, TreatmentPlansTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { QuoteAcceptanceInput, QuoteListQuery, QuoteRejectionInput } from './schema.js';

export type QuoteRow = Selectable<TreatmentPlansTable>;
export type ItemRow = Selectable<TreatmentPlanItemsTable>;
export type ItemInsert = Omit<ItemRow, 'id' | 'clinic_id' | 'treatment_plan_id'>;
type QuoteInsert = Insertable<TreatmentPlansTable>;
/** What a change of a draft may set; the amounts are always recomputed. */
type QuoteSet = Partial<Pick<QuoteRow, 'doctor_id' | 'title' | 'valid_until' | 'notes'>> &
  Pick<QuoteRow, 'subtotal_amount' | 'discount_amount' | 'total_amount'>;

/** The next number of a kind for the clinic and year, atomic under concurrency (one upsert). */
export async function nextNumber(trx: Transaction, clinicId: string, kind: string, year: number): Promise<number> {
  const row = await trx
    .insertInto('billing_counters')
    .values({ clinic_id: clinicId, kind, year, last: 1 })
    .onConflict((oc) => oc.columns(['clinic_id', 'kind', 'year']).doUpdateSet({ last: sql`billing_counters.last + 1` }))
    .returning('last')
    .executeTakeFirstOrThrow();
  return row.last;
}

export async function insertQuote(trx: Transaction, values: QuoteInsert): Promise<QuoteRow> {
  return trx.insertInto('treatment_plans').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateDraft(trx: Transaction, id: string, set: QuoteSet): Promise<QuoteRow> {
  return trx
    .updateTable('treatment_plans')
    .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A move of the quote's state, with what that move records (its time, channel, reason). */
export type QuoteMove =
  | { to: 'presented'; validUntil: string }
  | { to: 'accepted'; channel: QuoteAcceptanceInput['channel']; signedDocumentId: string | null }
  | { to: 'rejected'; reason: QuoteRejectionInput['reason']; note: string | null }
  | { to: 'cancelled' };

export async function moveQuote(trx: Transaction, id: string, move: QuoteMove): Promise<QuoteRow> {
  let set: Record<string, unknown>;
  switch (move.to) {
    case 'presented':
      set = { presented_at: sql`now()`, valid_until: move.validUntil };
      break;
    case 'accepted':
      set = { decided_at: sql`now()`, acceptance_channel: move.channel, signed_document_id: move.signedDocumentId };
      break;
    case 'rejected':
      set = { decided_at: sql`now()`, rejection_reason: move.reason, rejection_note: move.note };
      break;
    case 'cancelled':
      set = { decided_at: sql`now()`, cancelled_at: sql`now()` };
      break;
  }
  return trx
    .updateTable('treatment_plans')
    .set({ ...set, status: move.to, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function signatureRequired(trx: Transaction, clinicId: string): Promise<boolean> {
  const clinic = await trx.selectFrom('clinics').select('quotes_require_signature').where('id', '=', clinicId).executeTakeFirstOrThrow();
  return clinic.quotes_require_signature;
}

/** The document a quote's acceptance names, if the key sees it in its clinic. */
export async function signedDocumentOf(
  trx: Transaction,
  actor: Actor,
  documentId: string,
): Promise<{ patient_id: string; quote_id: string | null; status: string; category: string; purged_at: Date | null } | null> {
  const doc = await trx
    .selectFrom('documents')
    .select(['patient_id', 'quote_id', 'status', 'category', 'purged_at'])
    .where('id', '=', documentId)
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor))
    .executeTakeFirst();
  return doc ?? null;
}

/** Items of these quotes, by position. */
export async function quoteItems(db: Db, clinicId: string, ids: string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('treatment_plan_items')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('treatment_plan_id', 'in', ids)
    .orderBy('treatment_plan_id')
    .orderBy('position')
    .execute();
}

export async function replaceItems(trx: Transaction, clinicId: string, planId: string, rows: ItemInsert[]): Promise<void> {
  await trx.deleteFrom('treatment_plan_items').where('clinic_id', '=', clinicId).where('treatment_plan_id', '=', planId).execute();
  await trx
    .insertInto('treatment_plan_items')
    .values(rows.map((r) => ({ ...r, id: randomUUID(), clinic_id: clinicId, treatment_plan_id: planId })))
    .execute();
}

export async function listQuotes(db: Db, actor: Actor, q: QuoteListQuery): Promise<{ items: QuoteRow[]; nextCursor: string | null }> {
  let query = db.selectFrom('treatment_plans').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.status) query = query.where('status', '=', q.status);
  return updatedPage(query, {
    name: 'treatment-plans',
    clinicId: actor.clinicId,
    secret: actor.cursorSecret,
    q,
    filters: [q.patientId?.toLowerCase() ?? null, q.facilityId?.toLowerCase() ?? null, q.status ?? null],
  });
}
