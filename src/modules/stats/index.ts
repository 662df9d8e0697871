/** The front door of src/modules/stats: what code outside the module uses of it (test/layers.test.ts). */
export { agendaStatsQueryIssues } from './checks.js';
export { AgendaStatsQuerySchema, AgendaStatsSchema, MAX_RANGE_DAYS } from './schema.js';
export { agendaStats } from './service.js';
