/** Finding the patient, and recording a new prospect. */
import { LeadInputSchema, LeadSchema } from '../../modules/leads/index.js';
import { PatientSearchQuerySchema, PatientSearchResultSchema } from '../../modules/patients/index.js';
import type { AgentTool } from '../tool.js';

export const PEOPLE_TOOLS: AgentTool[] = [
  {
    name: 'search_patients',
    title: 'Find a patient',
    description: [
      'Find the caller among the patients by the name they say (“Giulia Rossi”), a tax code, a phone or an email (`q`), with a second detail they say: `birthDate`, `phoneLast` (the last 4+ digits of their phone) or `taxCode` confirm alone; `birthYear` only with their exact registered name, or together with another detail.',
      'You get the patient only when `confirmed` is true (`data[0]`); otherwise `data` is empty and `askFor` names the details to ask for next: never read anything out or act for an unconfirmed caller.',
      {
        text: 'When nothing matches after the details (`candidates: 0`, or no detail left to ask), treat the caller as a new contact (create_lead).',
        otherwise: 'When nothing matches after the details (`candidates: 0`, or no detail left to ask), treat the caller as a new contact.',
      },
    ],
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
    ],
    operation: { method: 'POST', url: '/v1/leads', operationId: 'createLead' },
    body: LeadInputSchema,
    output: LeadSchema,
    unshown: ['status', 'assignedTo', 'estimatedValue', 'nextFollowUpAt'],
    audience: 'all',
  },
];
