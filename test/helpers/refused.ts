/** The refusals of typed calls (`server.api(token)`): the test fails when the call succeeds. */
import { expect } from 'vitest';
import { ApiClientError } from '../../packages/client/src/index.js';

/** The error a typed call is refused with (the test fails when the call succeeds). */
export async function refused(call: Promise<unknown>): Promise<ApiClientError> {
  const outcome = await call.then(
    (data) => data,
    (error: unknown) => error,
  );
  expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(ApiClientError);
  return outcome as ApiClientError;
}

/** The paths of `details.issues` of a 400, in the order the service named them. */
export const issuePaths = (error: ApiClientError): string[] => (error.details?.issues as { path: string }[]).map((i) => i.path);
