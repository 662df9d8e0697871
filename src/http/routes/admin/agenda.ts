/** Back office: appointments, calendars, facilities, chat, tasks, billing. */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerAgendaAdminRoutes(_app: App, _ctx: AppContext): void {}
