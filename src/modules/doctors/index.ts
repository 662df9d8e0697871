/** The front door of src/modules/doctors: what code outside the module uses of it (test/layers.test.ts). */
export { DoctorAdminSchema, DoctorChangesSchema, DoctorListQuerySchema, DoctorSchema, NewDoctorSchema } from './schema.js';
export { createDoctor, getDoctor, listAllDoctors, listDoctors, updateDoctor } from './service.js';
export type { PersonView } from './service.js';
