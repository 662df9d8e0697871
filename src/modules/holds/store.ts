/**
 * The holds' SQL (README.md beside this file): the per-key lock and count, the insert, the
 * release and the purge, and the reads a booking of a hold makes. The caps are caps.ts, the
 * rules service.ts.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { CalendarsTable, SlotHoldsTable } from '../../db/tables/agenda.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { Slot } from '../../core/agenda.js';
import { HOLD_LIFE_SECONDS } from './caps.js';

export type HoldRow = Selectable<SlotHoldsTable>;

/** What a key holds besides the holder's hold it replaces (replaceAndCount). */
interface KeyHolds {
  /** The key's other live holds. */
  count: number;
  /** When the first of them lapses, or null. */
  nextExpiresAt: Date | null;
  /** The replaced hold while it lives unused (its start and expiry), or null. */
  replaced: { start: Date; expiresAt: Date } | null;
  /** When the holder first held (carried by the unused hold replaced), or null for a holder starting afresh. */
  firstHeldAt: Date | null;
  /** The database's clock (the transaction's start). */
  now: Date;
}

/**
 * Takes the key's lock (until commit), deletes the holder's hold (it is replaced: its time is
 * free for the new one) and counts the key's other live holds, with what the caps read (caps.ts):
 * one key's holds are counted one request at a time, so parallel requests cannot pass its caps
 * together. The count is one statement after the lock: its snapshot does not see its own delete,
 * so the hold it replaces is left out of the count by name. The replaced hold carries the
 * holder's first hold unless it was used, or lapsed a life ago (a holder starts afresh after as
 * long a pause).
 */
export async function replaceAndCount(trx: Transaction, h: { clinicId: string; keyId: string; holderRef: string }): Promise<KeyHolds> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`holds:${h.keyId}`}, 0))`.execute(trx);
  const { rows } = await sql<{
    n: number;
    next: Date | null;
    replaced_start: Date | null;
    replaced_expires: Date | null;
    first_held_at: Date | null;
    now: Date;
  }>`
    WITH replaced AS (
      DELETE FROM slot_holds WHERE clinic_id = ${h.clinicId} AND api_key_id = ${h.keyId} AND holder_ref = ${h.holderRef}
      RETURNING first_held_at, appointment_id, expires_at, start_at)
    SELECT count(*)::int AS n, min(expires_at) AS next,
      (SELECT start_at FROM replaced WHERE appointment_id IS NULL AND expires_at > now()) AS replaced_start,
      (SELECT expires_at FROM replaced WHERE appointment_id IS NULL AND expires_at > now()) AS replaced_expires,
      (SELECT first_held_at FROM replaced
        WHERE appointment_id IS NULL AND expires_at > now() - make_interval(secs => ${HOLD_LIFE_SECONDS})) AS first_held_at,
      now() AS now
    FROM slot_holds
    WHERE clinic_id = ${h.clinicId} AND api_key_id = ${h.keyId} AND holder_ref <> ${h.holderRef}
      AND appointment_id IS NULL AND expires_at > now()`.execute(trx);
  const live = rows[0]!;
  return {
    count: live.n,
    nextExpiresAt: live.next ? new Date(live.next) : null,
    replaced: live.replaced_start && live.replaced_expires ? { start: new Date(live.replaced_start), expiresAt: new Date(live.replaced_expires) } : null,
    firstHeldAt: live.first_held_at === null ? null : new Date(live.first_held_at),
    now: new Date(live.now),
  };
}

/**
 * A new hold of `slot`: it lapses after `ttlSeconds`, never past `deadline` (now() is the
 * transaction's start, as in the count); `firstHeldAt` null starts the holder's life now.
 */
export async function insertHold(
  trx: Transaction,
  h: {
    clinicId: string;
    keyId: string;
    holderRef: string;
    cal: Pick<Selectable<CalendarsTable>, 'id' | 'facility_id'>;
    slot: Slot;
    ttlSeconds: number;
    deadline: Date;
    firstHeldAt: Date | null;
  },
): Promise<HoldRow> {
  return trx
    .insertInto('slot_holds')
    .values({
      id: randomUUID(),
      clinic_id: h.clinicId,
      facility_id: h.cal.facility_id,
      calendar_id: h.cal.id,
      api_key_id: h.keyId,
      holder_ref: h.holderRef,
      doctor_id: h.slot.doctorId,
      chair_id: h.slot.chairId,
      start_at: h.slot.start,
      end_at: h.slot.end,
      expires_at: sql`least(now() + make_interval(secs => ${h.ttlSeconds}), ${h.deadline}::timestamptz)`,
      first_held_at: h.firstHeldAt ?? sql`now()`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the hold unless a booking used it (the appointment then holds the time). */
export async function deleteUnusedHold(trx: Transaction, hold: HoldRow): Promise<void> {
  if (hold.appointment_id === null) await trx.deleteFrom('slot_holds').where('id', '=', hold.id).execute();
}

/** Deletes holds that lapsed over a day ago; answers how many. */
export async function deleteLapsedHolds(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('slot_holds')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The hold of this id if this key made it, locked until commit, or undefined. */
export async function keyHoldOf(trx: Transaction, clinicId: string, keyId: string, id: string): Promise<HoldRow | undefined> {
  return trx
    .selectFrom('slot_holds')
    .selectAll()
    .where('id', '=', id)
    .where('clinic_id', '=', clinicId)
    .where('api_key_id', '=', keyId)
    .forUpdate()
    .executeTakeFirst();
}

/** Marks the hold used by the appointment booked from it. */
export async function markHoldUsed(trx: Transaction, holdId: string, appointmentId: string): Promise<void> {
  await trx.updateTable('slot_holds').set({ appointment_id: appointmentId }).where('id', '=', holdId).execute();
}
