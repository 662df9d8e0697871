/** Tables added by the agenda module's migrations (see src/db/migrations). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AgendaTables {}
