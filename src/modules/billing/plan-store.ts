/**
 * The payment plans' SQL: plans with their installments, the unpaid installments of a
 * patient's balance, and the claim of newly overdue installments (jobs.ts); the rules are
 * plans.ts' and jobs.ts'.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import type { InstallmentsTable, PaymentPlansTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { PaymentPlanListQuery } from './schema.js';

export type InstallmentRow = Selectable<InstallmentsTable>;
export type PaymentPlanRow = Selectable<PaymentPlansTable>;

/** The plan and its installments, numbered in the order given. */
export async function insertPlan(
  trx: Transaction,
  plan: Insertable<PaymentPlansTable> & { clinic_id: string },
  installments: Array<{ amount: number; due_date: string }>,
): Promise<PaymentPlanRow> {
  const row = await trx.insertInto('payment_plans').values(plan).returningAll().executeTakeFirstOrThrow();
  await trx
    .insertInto('installments')
    .values(
      installments.map((i, n) => ({
        id: randomUUID(),
        clinic_id: plan.clinic_id,
        payment_plan_id: row.id,
        seq: n + 1,
        amount: i.amount,
        due_date: i.due_date,
      })),
    )
    .execute();
  return row;
}

/** The installments of these plans, by due date, then in the order of their plan. */
export async function installmentsOf(db: Db, planIds: string[]): Promise<InstallmentRow[]> {
  if (planIds.length === 0) return [];
  return db.selectFrom('installments').selectAll().where('payment_plan_id', 'in', planIds).orderBy('due_date').orderBy('seq').execute();
}

export async function listPlans(db: Db, actor: Actor, q: PaymentPlanListQuery, today: string): Promise<{ items: PaymentPlanRow[]; nextCursor: string | null }> {
  const cursorScope = `payment-plans:${actor.clinicId}:${JSON.stringify([q.state, q.updatedSince ?? null, q.patientId?.toLowerCase() ?? null])}`;
  let query = db.selectFrom('payment_plans as p').selectAll('p').where('p.clinic_id', '=', actor.clinicId).where(facilityVisible('p.facility_id', actor));
  if (q.updatedSince) query = query.where('p.updated_at', '>=', new Date(q.updatedSince));
  if (q.patientId) query = query.where('p.patient_id', '=', q.patientId);
  if (q.state !== 'all') {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('installments as i')
          .select('i.id')
          .whereRef('i.payment_plan_id', '=', 'p.id')
          .where('i.status', '<>', 'paid')
          .$if(q.state === 'overdue', (s) => s.where('i.due_date', '<', today)),
      ),
    );
  }
  return keysetPage(query, {
    columns: ['p.updated_at', 'p.id'],
    at: (r) => r.updated_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
  });
}

/** Marks plans changed (a payment, an installment becoming overdue): syncing clients see it via `updatedSince`. */
export async function touchPlans(db: Db, ids: string[]): Promise<void> {
  if (ids.length > 0)
    await db
      .updateTable('payment_plans')
      .set({ updated_at: sql`now()` })
      .where('id', 'in', ids)
      .execute();
}

/** A patient's installments not yet paid, by due date, then in the order of their plan (the balance). */
export async function unpaidInstallmentsOf(db: Db, clinicId: string, patientId: string) {
  return db
    .selectFrom('installments as i')
    .innerJoin('payment_plans as p', 'p.id', 'i.payment_plan_id')
    .select(['i.id', 'i.payment_plan_id', 'i.amount', 'i.amount_paid', 'i.due_date'])
    .where('p.clinic_id', '=', clinicId)
    .where('p.patient_id', '=', patientId)
    .where('i.status', '<>', 'paid')
    .orderBy('i.due_date')
    .orderBy('i.seq')
    .execute();
}

interface ClaimedOverdue {
  id: string;
  clinic_id: string;
  payment_plan_id: string;
  patient_id: string;
  facility_id: string | null;
  amount: number;
  amount_paid: number;
  due_date: string;
  /** Never `paid`: the claim skips paid installments. */
  status: 'pending' | 'partially_paid';
}

/**
 * Claims up to `batch` installments past their due date (in the clinic's time zone) unpaid and
 * not yet notified, with one conditional UPDATE over rows locked with SKIP LOCKED: a second
 * process skips them, and after the commit no longer matches them. Their plans are touched.
 */
export async function claimOverdueInstallments(trx: Transaction, batch: number): Promise<ClaimedOverdue[]> {
  const { rows } = await sql<ClaimedOverdue>`
    UPDATE installments i
       SET overdue_notified_at = now()
      FROM payment_plans p
     WHERE i.id IN (
             SELECT i2.id
               FROM installments i2
               JOIN clinics c ON c.id = i2.clinic_id
              WHERE i2.overdue_notified_at IS NULL
                AND i2.status <> 'paid'
                AND i2.due_date < (now() AT TIME ZONE c.timezone)::date
              ORDER BY i2.due_date, i2.id
              LIMIT ${batch}
                FOR UPDATE OF i2 SKIP LOCKED)
       AND i.overdue_notified_at IS NULL
       AND p.id = i.payment_plan_id
    RETURNING i.id, i.clinic_id, i.payment_plan_id, p.patient_id, p.facility_id, i.amount, i.amount_paid, i.due_date, i.status`.execute(trx);
  // The overdue flag is part of the plan as listed: syncing clients see it via updatedSince.
  await touchPlans(trx, [...new Set(rows.map((r) => r.payment_plan_id))]);
  return rows;
}
