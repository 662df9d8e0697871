/** The front door of src/modules/patients: what code outside the module uses of it (test/layers.test.ts). */
export { archivePatient, erasePatient, updatePatient } from './back-office.js';
export { lookupQueryIssues, patientBodyIssues, patientImportIssues } from './checks.js';
export { checkFacility } from './facility.js';
export { NICKNAMES } from './nicknames.js';
export { normalizeEmail, normalizeName } from './normalize.js';
export { PATIENT_REASONS } from './reasons.js';
export {
  CLINICAL_FIELDS,
  IMPORT_MAX,
  PatientChangesSchema,
  PatientImportResultSchema,
  PatientImportSchema,
  PatientInputSchema,
  PatientLookupQuerySchema,
  PatientLookupSchema,
  PatientSchema,
  PatientSearchQuerySchema,
  PatientSearchResultSchema,
} from './schema.js';
export { addNameTerms } from './search-store.js';
export { searchPatients } from './search.js';
export { SEARCH_TUNING } from './name-candidates.js';
export { canonicalPhone, createPatient, createPatientInTransaction, getPatient, importPatients, lookupPatient } from './service.js';
export { patientByPhoneQuery } from './store.js';
