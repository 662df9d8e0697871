/** The front door of src/modules/clinics: what code outside the module uses of it (test/layers.test.ts). */
export { backOfficeActor } from './actor.js';
export { clinicBodyIssues } from './checks.js';
export { ClinicChangesSchema, ClinicSchema, NewClinicSchema, NewOrganizationSchema, OrganizationChangesSchema, OrganizationSchema } from './schema.js';
export { assertClinic, createClinic, createOrganization, getClinic, listClinics, retellSecretOf, setOrganizationSuspended, updateClinic } from './service.js';
export { anyClinic, readClinic } from './store.js';
