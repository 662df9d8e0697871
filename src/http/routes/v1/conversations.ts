/** /v1/conversations */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerConversationRoutes(_app: App, _ctx: AppContext): void {}
