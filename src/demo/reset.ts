/**
 * `dental-clinic demo reset --clinic <id>`: a test clinic back to its seeded state, a sandbox
 * an integrator can spoil and restore. The seeded state is the demo agenda of `npm start`
 * (doctors, chairs, staff, four calendars, 50 patients, appointments over two weeks, a chat,
 * tasks, a payment plan, a quote and an invoice). Kept: the clinic, its facilities (their
 * opening hours set back to the demo's), API keys, webhook destinations and history (events,
 * deliveries, the access log). Everything else of the clinic is deleted, in one transaction.
 * A live clinic is refused (`403 live_clinic`): its data is real.
 *
 * The seed runs after the deletion commits, through the same services as `npm start`; it
 * records the events a real change would (destinations and `listen` receive them). If it is
 * interrupted, running the reset again starts from an empty clinic.
 */
import type { Actor } from '../core/actor.js';
import { ApiError } from '../core/errors.js';
import type { Db } from '../db/transaction.js';
import { createFacility } from '../modules/facilities/index.js';
import { DEMO_FACILITIES, seedTestTwin } from './clinic.js';
import type { DemoReset } from './schema.js';
import { deleteClinicData, lockClinic } from './store.js';

export async function resetDemoClinic(db: Db, actor: Pick<Actor, 'clinicId'>): Promise<DemoReset> {
  const clinicId = actor.clinicId;
  const wiped = await db.transaction().execute(async (trx) => {
    const lock = await lockClinic(trx, clinicId);
    if (lock.outcome === 'absent') throw ApiError.notFound();
    if (lock.outcome === 'live')
      throw ApiError.forbidden('live_clinic', {}, 'Il reset è possibile solo per uno studio di test: i dati di uno studio live sono reali.');
    return { facilityIds: lock.facilityIds, deleted: await deleteClinicData(trx, clinicId) };
  });
  // The agenda needs two facilities: a test clinic made by hand may have fewer.
  const facilityIds = wiped.facilityIds.slice(0, 2);
  for (const f of DEMO_FACILITIES.slice(facilityIds.length)) facilityIds.push((await createFacility(db, { clinicId, region: 'IT' }, f)).id);
  const agenda = await seedTestTwin(db, clinicId, facilityIds);
  return { clinicId, deleted: wiped.deleted, facilityIds, patients: agenda.patientIds.length, calendars: agenda.calendarIds.length };
}
