/**
 * A fingerprint of everything stored: for every table of the schema (listed from
 * information_schema, so tables added by later migrations are covered), its row count and,
 * where the table has them, the sum of `version` and the latest `updated_at`. Two equal
 * fingerprints around a request mean the request inserted, deleted and versioned nothing.
 */
import { sql, type Kysely } from 'kysely';

export type Fingerprint = Record<string, string>;

export async function makeFingerprinter(db: Kysely<any>): Promise<() => Promise<Fingerprint>> {
  const { rows } = await sql<{ table_name: string; column_name: string | null }>`
    SELECT t.table_name, CASE WHEN c.column_name = 'version' AND c.data_type NOT IN ('integer', 'bigint', 'smallint') THEN 'version_text' ELSE c.column_name END AS column_name
    FROM information_schema.tables t
    LEFT JOIN information_schema.columns c
      ON c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name IN ('version', 'updated_at')
    WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY t.table_name`.execute(db);
  const tables = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!tables.has(r.table_name)) tables.set(r.table_name, new Set());
    if (r.column_name) tables.get(r.table_name)!.add(r.column_name);
  }
  const parts = [...tables].map(([name, cols]) => {
    const q = `"${name.replace(/"/g, '""')}"`;
    const version = cols.has('version')
      ? 'coalesce(sum(version), 0)::text'
      : cols.has('version_text')
        ? `coalesce(string_agg(version::text, ',' ORDER BY version::text), '')`
        : `''`;
    const updated = cols.has('updated_at') ? `coalesce(max(updated_at)::text, '')` : `''`;
    return `SELECT '${name.replace(/'/g, "''")}' AS t, count(*)::text || '/' || ${version} || '/' || ${updated} AS f FROM ${q}`;
  });
  const query = sql.raw(parts.join(' UNION ALL '));
  return async () => {
    const result = await query.execute(db);
    const out: Fingerprint = {};
    for (const r of result.rows as { t: string; f: string }[]) out[r.t] = r.f;
    return out;
  };
}

/** The tables whose fingerprint differs, with before and after. */
export function diffFingerprints(before: Fingerprint, after: Fingerprint): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).map((n) => `${n}: ${before[n]} -> ${after[n]}`);
}
