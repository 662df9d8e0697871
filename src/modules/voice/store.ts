/**
 * The voice agent's SQL: what it reads while the phone rings (one statement) and its handoffs.
 * The rules are service.ts'.
 */
import { randomUUID } from 'node:crypto';
import type { Insertable, Selectable } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Actor } from '../../core/actor.js';
import type { VoiceHandoffsTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { BLOCKING_EXCLUDED } from '../appointments/index.js';

const MAX_PATIENTS = 5;
const NEXT_APPOINTMENTS = 3;

export type HandoffRow = Selectable<VoiceHandoffsTable>;

/** The facilities the actor sees, the main one first, then the oldest. */
function facilitiesQuery(db: Db, actor: Actor) {
  return db
    .selectFrom('facilities')
    .select(['id', 'name', 'phone', 'working_schedule'])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('id', actor))
    .orderBy('is_main_location', 'desc')
    .orderBy('created_at')
    .orderBy('id');
}

/** A row of `facilitiesQuery`, read directly or as JSON. */
export type FacilityRow = Awaited<ReturnType<ReturnType<typeof facilitiesQuery>['executeTakeFirstOrThrow']>>;

export async function visibleFacilities(trx: Transaction, actor: Actor): Promise<FacilityRow[]> {
  return facilitiesQuery(trx, actor).execute();
}

/**
 * Everything in one statement (one round trip while the phone rings): the clinic's name, the
 * facilities the key sees, the active patients with the caller's number and their next
 * appointments, and the lead with it not yet converted.
 */
export async function callerRead(db: Db, actor: Actor, byPhone: string, now: Date) {
  return db
    .selectNoFrom((eb) => [
      eb.selectFrom('clinics').select('name').where('id', '=', actor.clinicId).as('clinic_name'),
      jsonArrayFrom(facilitiesQuery(db, actor)).as('facilities'),
      jsonArrayFrom(
        db
          .selectFrom('patients as p')
          .select(['p.id', 'p.first_name'])
          .select((inner) =>
            jsonArrayFrom(
              inner
                .selectFrom('appointments as a')
                .leftJoin('calendars as c', (j) => j.onRef('c.id', '=', 'a.calendar_id').onRef('c.clinic_id', '=', 'a.clinic_id'))
                .select(['a.id', 'a.start_at', 'c.name as calendar_name'])
                .where('a.clinic_id', '=', actor.clinicId)
                .whereRef('a.patient_id', '=', 'p.id')
                .where(facilityVisible('a.facility_id', actor))
                .where('a.start_at', '>', now)
                .where('a.status', 'not in', [...BLOCKING_EXCLUDED, 'completed', 'checked_in', 'in_progress'])
                .orderBy('a.start_at')
                .orderBy('a.id')
                .limit(NEXT_APPOINTMENTS),
            ).as('upcoming'),
          )
          .where('p.clinic_id', '=', actor.clinicId)
          .where(facilityVisible('p.facility_id', actor))
          .where('p.phone', '=', byPhone)
          .where('p.is_active', '=', true)
          .where('p.erased_at', 'is', null)
          .orderBy('p.updated_at', 'desc')
          .orderBy('p.id')
          .limit(MAX_PATIENTS),
      ).as('patients'),
      jsonObjectFrom(
        db
          .selectFrom('leads')
          .select(['id', 'first_name'])
          .where('clinic_id', '=', actor.clinicId)
          .where(facilityVisible('facility_id', actor))
          .where('phone', '=', byPhone)
          .where('converted_patient_id', 'is', null)
          .orderBy('updated_at', 'desc')
          .orderBy('id')
          .limit(1),
      ).as('lead'),
    ])
    .executeTakeFirstOrThrow();
}

/** The handoff of this call by this key, if any. */
export async function handoffOf(db: Db, actor: Actor, callId: string): Promise<HandoffRow | undefined> {
  return db
    .selectFrom('voice_handoffs')
    .selectAll()
    .where('clinic_id', '=', actor.clinicId)
    .where('api_key_id', '=', actor.keyId)
    .where('call_ref', '=', callId)
    .executeTakeFirst();
}

/** The handoff; a second one of the same call and key is refused by the unique index (the caller reads the winner). */
export async function insertHandoff(trx: Transaction, values: Omit<Insertable<VoiceHandoffsTable>, 'id'>): Promise<HandoffRow> {
  return trx
    .insertInto('voice_handoffs')
    .values({ id: randomUUID(), ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}
