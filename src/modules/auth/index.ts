/** The front door of src/modules/auth: what code outside the module uses of it (test/layers.test.ts). */
export { aiDisabled } from './ai.js';
export { Authenticator, hasScope, KnownKeyRefused, requireScopes, seesFacility } from './authenticate.js';
export { keyBodyIssues } from './checks.js';
export { createApiKey, listApiKeys, replaceApiKey, revokeApiKey } from './keys-service.js';
export { KEY_REASONS } from './reasons.js';
export { ApiKeySchema, CreatedApiKeySchema, NewApiKeySchema } from './schema.js';
export { SCOPES } from './scopes.js';
export type { Scope } from './scopes.js';
