/** The clinic's back office as an agent meets it: a to-do for the staff, what a patient owes. */
import { BalanceSchema } from '../../modules/billing/index.js';
import { NewTaskBody, TaskSchema } from '../../modules/tasks/index.js';
import { IdParams } from '../../core/schemas.js';
import type { AgentTool } from '../tool.js';
import { PATIENT_FROM_CONFIRMED } from './identity.js';

export const OFFICE_TOOLS: AgentTool[] = [
  {
    name: 'create_task',
    title: 'Leave a task for the staff',
    description: [
      'Leave a to-do for the clinic’s staff when the caller needs something you cannot do (a callback, a document, a question for the dentist): a short `title` without clinical details, `patientId` when known, `dueDate` when it has one.',
      'Then tell the caller the clinic will get back to them. Sending it again in the same call creates nothing more.',
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'POST', url: '/v1/tasks', operationId: 'createTask' },
    body: NewTaskBody,
    output: TaskSchema,
    audience: 'all',
  },
  {
    name: 'get_balance',
    title: 'What a patient owes',
    description: [
      'What the patient (`patientId`) owes: the outstanding amount in euro, overdue installments. Say the amount only to the patient themselves, once you are sure who is calling.',
      'When the balance is zero, say there is nothing to pay.',
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'GET', url: '/v1/patients/:id/balance', operationId: 'getPatientBalance' },
    params: { schema: IdParams, names: { id: 'patientId' } },
    output: BalanceSchema,
    audience: 'all',
  },
];
