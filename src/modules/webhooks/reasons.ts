/** The closed sets of `details.reason` each webhook operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const WEBHOOK_REASONS = {
  createEndpoint: { conflict: ['endpoint_limit'] },
  updateEndpoint: { conflict: ['secret_rotation_required'] },
  replay: { conflict: ['endpoint_disabled', 'key_inactive', 'replay_too_large'] },
  triggerSample: { forbidden: ['live_clinic'] },
  redeliver: { conflict: ['delivery_not_finished', 'redeliver_limit', 'endpoint_deleted', 'endpoint_disabled'] },
} as const satisfies Record<string, DeclaredReasons>;
