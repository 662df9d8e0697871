/** /v1/calendars */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerCalendarRoutes(_app: App, _ctx: AppContext): void {}
