/** A lead row as the API shows it, and as its events carry it. */
import type { Selectable } from 'kysely';
import type { LeadsTable } from '../../db/tables/core.js';
import type { EventData } from './events.js';
import type { LeadView } from './schema.js';

export type LeadRow = Selectable<LeadsTable>;

export function leadView(row: LeadRow, deduplicated = false): LeadView {
  return {
    id: row.id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    source: row.source as LeadView['source'],
    sourceDetail: row.source_detail,
    status: row.status as LeadView['status'],
    assignedTo: row.assigned_to,
    estimatedValue: row.estimated_value === null ? null : Number(row.estimated_value),
    notes: row.notes,
    nextFollowUpAt: row.next_follow_up_at?.toISOString() ?? null,
    lastContactedAt: row.last_contacted_at?.toISOString() ?? null,
    lostReason: row.lost_reason,
    convertedPatientId: row.converted_patient_id,
    convertedAt: row.converted_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deduplicated,
  };
}

export function eventData(
  row: Pick<LeadRow, 'id' | 'facility_id' | 'source' | 'status' | 'assigned_to' | 'converted_patient_id' | 'created_at' | 'updated_at'>,
): EventData<'lead.created'> {
  return {
    id: row.id,
    facilityId: row.facility_id,
    source: row.source as LeadView['source'],
    status: row.status as LeadView['status'],
    assignedTo: row.assigned_to,
    convertedPatientId: row.converted_patient_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
