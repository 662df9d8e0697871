/**
 * The checks of patient bodies that need no database: a phone that is a phone number (read in
 * the deployment's region without a country prefix). Each serves the service, on a body that
 * passed its schema, and the routes' `config.bodyIssues`, on a body its schema refused, so one
 * `400` names the schema's wrong fields and these (src/lib/loose.ts).
 */
import type { ActorEnvironment } from '../../core/actor.js';
import type { ValidationIssue } from '../../core/errors.js';
import { list, phoneIssue, record } from '../../lib/loose.js';

type Region = Pick<ActorEnvironment, 'region'>;

/** A patient's creation or changes; `path` prefixes each issue (an item of an import). */
export function patientBodyIssues(body: unknown, env: Region, path = ''): ValidationIssue[] {
  return phoneIssue(record(body).phone, env.region, `${path}phone`);
}

/** An import: each patient's issues, at `patients.<n>.`. */
export function patientImportIssues(body: unknown, env: Region): ValidationIssue[] {
  return list(record(body).patients).flatMap((p, n) => patientBodyIssues(p, env, `patients.${n}.`));
}

/** The lookup by phone: a phone that is a phone number. */
export function lookupQueryIssues(query: unknown, env: Region): ValidationIssue[] {
  return phoneIssue(record(query).phone, env.region, 'phone');
}
