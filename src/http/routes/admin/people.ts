/** Back office: patients, leads and calls (issue: patients/leads/calls). */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerPeopleAdminRoutes(_app: App, _ctx: AppContext): void {}
