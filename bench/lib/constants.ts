/** The bare route of the benchmarks: no auth, no database, the same bytes as GET /facilities/{id}. */
export const CEILING_PATH = '/bench/ceiling';
