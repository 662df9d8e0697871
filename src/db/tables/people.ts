/** Tables added by the people module's migrations (see src/db/migrations). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PeopleTables {}
