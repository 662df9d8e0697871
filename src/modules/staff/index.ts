/** The front door of src/modules/staff: what code outside the module uses of it (test/layers.test.ts). */
export { NewStaffSchema, StaffProfileSchema, StaffSchema } from './schema.js';
export { createStaffProfile, listAllStaffProfiles, listStaffProfiles } from './service.js';
