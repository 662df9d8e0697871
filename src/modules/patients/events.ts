/**
 * The `data` of the patient events (spec 6.2, 6.3): ids, state and timestamps; never a name, a
 * phone or a clinical field. The fields are picked from the REST schema, so a field keeps one
 * description and one type in the whole document.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import { StringEnum } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { patientFields, PatientSchema } from './schema.js';

const patientBase = Type.Pick(PatientSchema, ['id', 'facilityId', 'isActive', 'archivedAt', 'createdAt', 'updatedAt']).properties;
const PATIENT_EXAMPLE = {
  id: ID.patient,
  facilityId: ID.facility,
  isActive: true,
  archivedAt: null,
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
/** The names of the fields a patient update can change (those of the patient's input). */
const PATIENT_CHANGED_FIELDS = Object.keys(patientFields) as Array<keyof typeof patientFields>;

const PatientCreated = EventDataObject(patientBase, 'PatientEventData', 'The patient’s ids, state and timestamps (no personal data)', PATIENT_EXAMPLE);
const PatientUpdated = EventDataObject(
  {
    ...patientBase,
    changedFields: Type.Array(StringEnum(PATIENT_CHANGED_FIELDS), {
      minItems: 1,
      description: 'The fields whose value really changed (names only, never the values)',
    }),
  },
  'PatientUpdatedEventData',
  'The patient’s ids, state and timestamps, and the names of the fields that changed',
  { ...PATIENT_EXAMPLE, updatedAt: '2026-03-05T16:40:12.000Z', changedFields: ['phone', 'email'] },
);
const PatientArchived = EventDataObject(
  { ...patientBase, reason: StringEnum(['archived', 'erased'] as const, { description: '`erased`: the personal data is gone for good' }) },
  'PatientArchivedEventData',
  'The patient’s ids, state and timestamps, and whether it was archived or erased',
  { ...PATIENT_EXAMPLE, isActive: false, archivedAt: '2026-09-14T11:02:00.000Z', updatedAt: '2026-09-14T11:02:00.000Z', reason: 'archived' },
);

/** The schema of `data` for each patient event type. */
export const PATIENT_EVENTS = {
  'patient.created': PatientCreated,
  'patient.updated': PatientUpdated,
  'patient.archived': PatientArchived,
} satisfies { [T in AnyEventType]?: TSchema };

/** The `data` of a patient event of type T. */
export type EventData<T extends keyof typeof PATIENT_EVENTS> = Static<(typeof PATIENT_EVENTS)[T]>;
