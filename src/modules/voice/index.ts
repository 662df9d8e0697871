/** The front door of src/modules/voice: what code outside the module uses of it (test/layers.test.ts). */
export { contextQueryIssues } from './checks.js';
export { HandoffSchema, NewHandoffSchema, VoiceContextQuerySchema, VoiceContextSchema } from './schema.js';
export { handOff, voiceContext } from './service.js';
