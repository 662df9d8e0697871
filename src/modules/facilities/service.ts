/** Facilities as the API shows them (spec 2.11). */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { seesFacility, type AuthContext } from '../auth/authenticate.js';

export interface FacilityView {
  id: string;
  name: string;
  street: string | null;
  city: string | null;
  province: string | null;
  zipCode: string | null;
  phone: string | null;
  email: string | null;
  isMainLocation: boolean;
  avgAppointmentMinutes: number;
  workingSchedule: unknown;
  updatedAt: string;
}

export async function getFacility(db: Kysely<DB>, auth: AuthContext, id: string): Promise<{ view: FacilityView; version: number }> {
  const row = await db
    .selectFrom('facilities')
    .selectAll()
    .where('id', '=', id)
    .where('clinic_id', '=', auth.clinicId)
    .executeTakeFirst();
  if (!row || !seesFacility(auth, row.id)) throw ApiError.notFound();
  return {
    version: row.version,
    view: {
      id: row.id,
      name: row.name,
      street: row.street,
      city: row.city,
      province: row.province,
      zipCode: row.zip_code,
      phone: row.phone,
      email: row.email,
      isMainLocation: row.is_main_location,
      avgAppointmentMinutes: row.avg_appointment_minutes,
      workingSchedule: row.working_schedule,
      updatedAt: row.updated_at.toISOString(),
    },
  };
}
