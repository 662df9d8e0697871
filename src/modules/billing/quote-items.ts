/**
 * A quote's items: how they are shown, priced (integer cents; the checks are checks.ts'
 * quoteBodyIssues), stored and read, and the appointments they may name (the quote's patient's).
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Ref } from '../../db/scoped.js';
import type { TreatmentPlanItemsTable } from '../../db/tables/agenda.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { sumCents, toCents, toEuro } from './money.js';
import type { QuoteItemInputType, QuoteView } from './schema.js';

export type ItemRow = Selectable<TreatmentPlanItemsTable>;

export function itemView(row: ItemRow): QuoteView['items'][number] {
  return {
    id: row.id,
    position: row.position,
    phase: row.phase,
    procedureCode: row.procedure_code,
    description: row.description,
    teeth: row.teeth,
    surfaces: row.surfaces as QuoteView['items'][number]['surfaces'],
    quantity: row.quantity,
    unitAmount: Number(row.unit_amount),
    discount: Number(row.discount_amount),
    totalAmount: Number(row.total_amount),
    status: row.status as QuoteView['items'][number]['status'],
    appointmentId: row.appointment_id,
  };
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

export interface PricedItems {
  rows: Array<Omit<ItemRow, 'id' | 'clinic_id' | 'treatment_plan_id'>>;
  subtotalCents: number;
}

/** Prices items that passed quoteBodyIssues (integer cents). */
export function priceItems(items: QuoteItemInputType[]): PricedItems {
  const rows = items.map((item, n) => {
    const quantity = item.quantity ?? 1;
    const gross = quantity * toCents(item.unitAmount);
    const discount = toCents(item.discount ?? 0);
    return {
      position: n + 1,
      phase: item.phase ?? 1,
      procedure_code: item.procedureCode ?? null,
      description: item.description,
      teeth: item.teeth ?? [],
      surfaces: item.surfaces ?? [],
      quantity,
      unit_amount: item.unitAmount,
      discount_amount: toEuro(discount),
      total_amount: toEuro(gross - discount),
      status: item.status ?? 'planned',
      appointment_id: item.appointmentId ?? null,
    };
  });
  return { rows, subtotalCents: sumCents(rows.map((r) => toCents(r.total_amount))) };
}

/** The appointments items name: visible to the key and the quote's patient's (checkRefs). */
export function appointmentRefs(items: QuoteItemInputType[] | undefined, patientId: string): Ref[] {
  return (items ?? []).map((item, n) => ({ field: `items.${n}.appointmentId`, table: 'appointments' as const, id: item.appointmentId, patientId }));
}

export async function replaceItems(trx: Transaction, clinicId: string, planId: string, priced: PricedItems): Promise<void> {
  await trx.deleteFrom('treatment_plan_items').where('clinic_id', '=', clinicId).where('treatment_plan_id', '=', planId).execute();
  await trx
    .insertInto('treatment_plan_items')
    .values(priced.rows.map((r) => ({ ...r, id: randomUUID(), clinic_id: clinicId, treatment_plan_id: planId })))
    .execute();
}
