/** The `data` of the lead events (spec 6.2, 6.3): state and links, never a name, a phone or notes. */
import { Type, type Static, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import { Uuid } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { LeadSchema } from './schema.js';

const leadFields = Type.Pick(LeadSchema, ['id', 'facilityId', 'source', 'status', 'assignedTo', 'convertedPatientId', 'createdAt', 'updatedAt']).properties;
const LEAD_EXAMPLE = {
  id: ID.lead,
  facilityId: ID.facility,
  source: 'website',
  status: 'new',
  assignedTo: ID.staff,
  convertedPatientId: null,
  createdAt: '2026-02-20T17:45:00.000Z',
  updatedAt: '2026-02-20T17:45:00.000Z',
};
const LeadCreated = EventDataObject(leadFields, 'LeadEventData', 'The lead’s state and links (no personal data)', LEAD_EXAMPLE);
const LeadConverted = EventDataObject(
  { ...leadFields, patientId: Uuid({ description: 'The patient the lead became (also `convertedPatientId`)' }) },
  'LeadConvertedEventData',
  'The lead’s state and links, and the patient it became',
  { ...LEAD_EXAMPLE, status: 'won', convertedPatientId: ID.patient, updatedAt: '2026-03-02T09:30:00.000Z', patientId: ID.patient },
);

/** The schema of `data` for each lead event type. */
export const LEAD_EVENTS = {
  'lead.created': LeadCreated,
  'lead.converted': LeadConverted,
} satisfies { [T in AnyEventType]?: TSchema };

/** The `data` of a lead event of type T. */
export type EventData<T extends keyof typeof LEAD_EVENTS> = Static<(typeof LEAD_EVENTS)[T]>;
