/** /v1/patients */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerPatientRoutes(_app: App, _ctx: AppContext): void {}
