/** The clinic's AI switch (spec 7): one refusal, answered by the v1 gate and by every agent tool. */
import { ApiError } from '../../core/errors.js';

export function aiDisabled(): ApiError {
  return ApiError.forbidden('ai_disabled', {}, 'Lo studio ha disattivato l’elaborazione tramite intelligenza artificiale: l’agente non è disponibile.');
}
