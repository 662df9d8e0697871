/** Finding the patient, and recording a new prospect. */
import { LeadInputSchema, LeadSchema } from '../../modules/leads/schema.js';
import { PatientSearchQuerySchema, PatientSearchResultSchema } from '../../modules/patients/schema.js';
import type { AgentTool } from '../tool.js';

export const PEOPLE_TOOLS: AgentTool[] = [
  {
    name: 'search_patients',
    title: 'Find a patient',
    description: [
      'Find the patient by the name the caller says (“Giulia Rossi”), a phone number, a tax code or an email (`q`, at least 2 characters). Hits come best first.',
      'When several patients match, ask for the date of birth or another detail rather than reading names out. When nothing matches, say you cannot find them and offer to note their details as a new contact (create_lead).',
    ].join(' '),
    operation: { method: 'GET', url: '/v1/patients/search', operationId: 'searchPatients' },
    query: PatientSearchQuerySchema,
    output: PatientSearchResultSchema,
    audience: 'all',
  },
  {
    name: 'create_lead',
    title: 'Note a new prospect',
    description: [
      'Use when the caller is not a patient and wants to be contacted or to come in: their `firstName`, and when given `lastName`, `phone`, `email`, a short `notes` of what they want (no clinical details), `source` `phone` or `chat`.',
      'Then tell them the clinic will contact them. Sending the same lead again in the same call creates nothing more.',
    ].join(' '),
    operation: { method: 'POST', url: '/v1/leads', operationId: 'createLead' },
    body: LeadInputSchema,
    output: LeadSchema,
    audience: 'all',
  },
];
