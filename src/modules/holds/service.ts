/**
 * Slot holds (README.md beside this file): a key keeps a free slot for a caller while the
 * agent confirms it, so nobody else can book or hold that time until the hold is booked,
 * released or lapses.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { SlotHoldsTable } from '../../db/tables/agenda.js';
import type { Db } from '../../db/transaction.js';
import { findScoped } from '../../db/scoped.js';
import { assertBookableBy, booking, takeSlot } from '../calendars/booking.js';
import { type CalendarRow, type SlotOptions } from '../calendars/service.js';
import { assertCalendarShare, assertLifeLeft, HOLD_LIFE_SECONDS, lifeDeadline, shareWindow } from './caps.js';
import { HOLD_TTL, HOLDS_PER_KEY, type HoldView, type NewHold } from './schema.js';

type HoldRow = Selectable<SlotHoldsTable>;

export function holdView(row: HoldRow): HoldView {
  return {
    id: row.id,
    calendarId: row.calendar_id,
    start: row.start_at.toISOString(),
    end: row.end_at.toISOString(),
    doctorId: row.doctor_id,
    chairId: row.chair_id,
    holderRef: row.holder_ref,
    expiresAt: row.expires_at.toISOString(),
  };
}

/** Only an API key holds slots: the holds are counted per key. */
function keyOf(actor: Actor): string {
  if (!actor.keyId) throw ApiError.forbidden('not_bookable_by_agent');
  return actor.keyId;
}

/** Holds the free slot starting at `input.start` of the calendar for `input.holderRef`. */
export async function createHold(db: Db, actor: Actor, calendarId: string, input: NewHold): Promise<HoldView> {
  const keyId = keyOf(actor);
  const start = new Date(input.start);
  let cal: CalendarRow | null = null;
  const opts: SlotOptions = { doctorId: input.doctorId?.toLowerCase() };
  return booking(
    db,
    actor,
    () => start,
    () => cal,
    () => opts,
    () =>
      db.transaction().execute(async (trx) => {
        const found = await findScoped(trx, 'calendars', actor, calendarId);
        if (opts.doctorId && !found.doctor_ids.includes(opts.doctorId)) {
          throw ApiError.invalid('body', [{ path: 'doctorId', message: 'non è un medico di questo calendario' }]);
        }
        assertBookableBy(found, actor);
        // One key's holds are counted one request at a time, so parallel requests cannot pass its caps together.
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`holds:${keyId}`}, 0))`.execute(trx);
        // The same call holding again replaces its hold (and frees its time for the new one), and
        // the key's other live holds are counted, in one statement after the lock: its snapshot
        // does not see its own delete, so the hold it replaces is left out of the count by name.
        // The same statement answers the caps (caps.ts): the starts of the key's holds of this
        // calendar in the share's window, and when the holder first held (an unused hold replaced
        // that lapsed less than a life ago: a holder starts afresh after as long a pause).
        const window = shareWindow(actor.timeZone, start);
        const { rows } = await sql<{ n: number; next: Date | null; held: number[]; first_held_at: Date | null; now: Date }>`
          WITH replaced AS (
            DELETE FROM slot_holds WHERE clinic_id = ${actor.clinicId} AND api_key_id = ${keyId} AND holder_ref = ${input.holderRef}
            RETURNING first_held_at, appointment_id, expires_at)
          SELECT count(*)::int AS n, min(expires_at) AS next,
            coalesce(array_agg(round(extract(epoch FROM start_at) * 1000)::float8)
              FILTER (WHERE calendar_id = ${found.id} AND start_at >= ${window.from} AND start_at < ${window.to}), '{}') AS held,
            (SELECT first_held_at FROM replaced
              WHERE appointment_id IS NULL AND expires_at > now() - make_interval(secs => ${HOLD_LIFE_SECONDS})) AS first_held_at,
            now() AS now
          FROM slot_holds
          WHERE clinic_id = ${actor.clinicId} AND api_key_id = ${keyId} AND holder_ref <> ${input.holderRef}
            AND appointment_id IS NULL AND expires_at > now()`.execute(trx);
        const live = rows[0]!;
        const firstHeldAt = live.first_held_at === null ? null : new Date(live.first_held_at);
        assertLifeLeft(firstHeldAt, new Date(live.now));
        if (live.n >= HOLDS_PER_KEY) {
          throw ApiError.conflict(
            'hold_limit',
            { limit: HOLDS_PER_KEY, nextExpiresAt: live.next ? new Date(live.next).toISOString() : null },
            `Questa chiave tiene già ${HOLDS_PER_KEY} orari: rilasciane uno o attendi che scada.`,
          );
        }
        cal = found;
        // After the key's lock, which no schedule lock holder waits for: no cycle of waits. The
        // read of the slot's time covers its whole day, for the calendar share (no statement more).
        const { slot, free } = await takeSlot(trx, actor.clinicId, found, actor.timeZone, start, opts, window);
        assertCalendarShare(free, live.held.map(Number), window);
        const ttl = input.ttlSeconds ?? HOLD_TTL.default;
        // A replacement keeps the first hold's deadline (now() is the transaction's start, as in the count).
        const deadline = lifeDeadline(firstHeldAt ?? new Date(live.now));
        const row = await trx
          .insertInto('slot_holds')
          .values({
            id: randomUUID(),
            clinic_id: actor.clinicId,
            facility_id: found.facility_id,
            calendar_id: found.id,
            api_key_id: keyId,
            holder_ref: input.holderRef,
            doctor_id: slot.doctorId,
            chair_id: slot.chairId,
            start_at: slot.start,
            end_at: slot.end,
            expires_at: sql`least(now() + make_interval(secs => ${ttl}), ${deadline}::timestamptz)`,
            first_held_at: firstHeldAt ?? sql`now()`,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return holdView(row);
      }),
  );
}

/**
 * Releases a hold of this key: its time is free at once. A hold of another key, of another
 * clinic or of a facility the key does not see is 404; a hold already used by a booking is
 * left as it is (the appointment holds the time).
 */
export async function releaseHold(db: Db, actor: Actor, id: string): Promise<void> {
  const keyId = keyOf(actor);
  await db.transaction().execute(async (trx) => {
    const hold = await findScoped(trx, 'slot_holds', actor, id);
    if (hold.api_key_id !== keyId) throw ApiError.notFound();
    if (hold.appointment_id === null) await trx.deleteFrom('slot_holds').where('id', '=', hold.id).execute();
  });
}

/** Deletes holds that lapsed over a day ago (a periodic job); a lapsed hold blocks nothing meanwhile. */
export async function purgeLapsedHolds(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('slot_holds')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
