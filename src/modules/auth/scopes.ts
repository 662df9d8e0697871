/**
 * The scopes of spec 5.3, plus `appointments:write` for booking through the API, and for billing
 * `treatment_plans:write` (create, change and decide quotes) and `billing:write` (record payments).
 */
export const SCOPES = [
  'appointments:read',
  'appointments:write',
  'patients:read',
  'patients:write',
  'clinical:read',
  'clinical:write',
  'tasks:read',
  'tasks:write',
  'leads:read',
  'leads:write',
  'messages:read',
  'messages:write',
  'calls:read',
  'calls:write',
  'billing:read',
  'billing:write',
  'clinic:read',
  'treatment_plans:read',
  'treatment_plans:write',
  'documents:read',
  'documents:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
