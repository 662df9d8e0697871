/** The pure rule behind route `config.reasons` (src/core/errors.ts). */
import { describe, expect, it } from 'vitest';
import { ApiError, reasonDeclared } from '../../src/core/errors.js';

describe('reasonDeclared', () => {
  const declared = { conflict: ['duplicate_patient'], forbidden: ['plan_limit'] };
  it('accepts declared reasons, the common conflict reasons and errors without a reason', () => {
    expect(reasonDeclared(ApiError.conflict('duplicate_patient'), declared)).toBe(true);
    expect(reasonDeclared(ApiError.forbidden('plan_limit'), declared)).toBe(true);
    expect(reasonDeclared(ApiError.conflict('version_mismatch'), undefined)).toBe(true);
    expect(reasonDeclared(ApiError.notFound(), undefined)).toBe(true);
    expect(reasonDeclared(new ApiError('insufficient_scope', { requiredScopes: ['x'] }), undefined)).toBe(true);
  });
  it('refuses a reason declared for the other status, or not at all', () => {
    expect(reasonDeclared(ApiError.forbidden('duplicate_patient'), declared)).toBe(false);
    expect(reasonDeclared(ApiError.conflict('plan_limit'), declared)).toBe(false);
    expect(reasonDeclared(ApiError.conflict('anything'), undefined)).toBe(false);
  });
});
