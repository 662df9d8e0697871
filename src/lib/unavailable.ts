/**
 * A service a request needs does not answer (Redis, the database): the request is answered
 * `503 unavailable` with `Retry-After` (spec 7), not `500`, and the process is not ready.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: 'redis' | 'database',
    cause: unknown,
  ) {
    super(`${dependency} does not answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
