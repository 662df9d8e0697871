/** /v1/appointments */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerAppointmentRoutes(_app: App, _ctx: AppContext): void {}
