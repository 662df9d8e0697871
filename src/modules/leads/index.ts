/** The front door of src/modules/leads: what code outside the module uses of it (test/layers.test.ts). */
export { leadBodyIssues } from './checks.js';
export { LEAD_REASONS } from './reasons.js';
export {
  ActivitySchema,
  LeadChangesSchema,
  LeadConversionSchema,
  LeadConvertedSchema,
  LeadDetailSchema,
  LeadInputSchema,
  LeadSchema,
  NewActivitySchema,
} from './schema.js';
export { addActivity, addActivityInTransaction, convertLead, createLead, createLeadInTransaction, getLead, updateLead } from './service.js';
