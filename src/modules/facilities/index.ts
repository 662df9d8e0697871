/** The front door of src/modules/facilities: what code outside the module uses of it (test/layers.test.ts). */
export { facilityBodyIssues } from './checks.js';
export { minutesOf, scheduleIssues, WEEKDAYS, WeekScheduleSchema } from './schedule.js';
export { CreatedFacilitySchema, FacilityChangesSchema, FacilitySchema, FacilitySummarySchema, NewFacilitySchema } from './schema.js';
export { assertFacilityOfClinic, createFacility, listAllFacilities, listFacilities, readFacility, updateFacility, visibleFacility } from './service.js';
export type { FacilityRead } from './service.js';
export { facilityOfClinic } from './store.js';
