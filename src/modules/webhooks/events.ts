/** The `data` of `webhook.test` (spec 6.2): sent only by `POST /webhook-endpoints/{id}/test`, never recorded. */
import { Type, type TSchema } from 'typebox';
import type { AnyEventType } from '../../events/catalogue.js';

const WebhookTest = Type.Object({}, { additionalProperties: false, title: 'WebhookTestEventData', description: 'Always empty', examples: [{}] });

/** The schema of `data` for each webhook event type. */
export const WEBHOOK_EVENTS = {
  'webhook.test': WebhookTest,
} satisfies { [T in AnyEventType]?: TSchema };
