/** A patient row as the API shows it, and as its events carry it (ids, state, timestamps). */
import type { Selectable } from 'kysely';
import type { Address, PatientsTable } from '../../db/tables/core.js';
import type { EventData } from './events.js';
import type { AddressInput, PatientView } from './schema.js';

export type PatientRow = Selectable<PatientsTable>;

export function patientView(row: PatientRow, clinicalRead: boolean): PatientView {
  const view: PatientView = {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    dateOfBirth: row.date_of_birth,
    gender: row.gender as PatientView['gender'],
    taxCode: row.tax_code,
    address: row.address ?? null,
    facilityId: row.facility_id,
    referralSource: row.referral_source as PatientView['referralSource'],
    isActive: row.is_active,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (clinicalRead) {
    view.allergies = row.allergies;
    view.medications = row.medications;
    view.conditions = row.conditions;
    view.notes = row.notes;
  }
  return view;
}

/** Event `data` of the patient events: ids, state and timestamps, never personal data (spec 6.2). */
export function eventData(
  row: Pick<PatientRow, 'id' | 'facility_id' | 'is_active' | 'archived_at' | 'created_at' | 'updated_at'>,
): EventData<'patient.created'> {
  return {
    id: row.id,
    facilityId: row.facility_id,
    isActive: row.is_active,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function normalizeAddress(a: AddressInput | null | undefined): Address | null {
  if (!a) return null;
  return { street: a.street ?? null, city: a.city ?? null, zip: a.zip ?? null, country: a.country ?? null };
}
