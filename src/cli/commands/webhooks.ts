/**
 * Webhooks on a developer's machine, which a real destination may not be (https only, no
 * loopback): `listen` forwards a test clinic's events to a local URL, signed exactly as real
 * deliveries (spec 6.1 headers, 6.5 signature, the same envelope) with a secret it prints;
 * `trigger` makes a sample event of a type in that clinic. The pattern of Stripe's CLI.
 */
import { randomUUID } from 'node:crypto';
import { request, type AdminApi } from '../admin-api.js';
import { redact, redactUrl } from '../credentials.js';
import { str, type Command } from '../commands.js';
import { printResult, UsageError } from '../output.js';

const TEST_CLINIC = { description: 'Test clinic id (mode test)', example: '4f48d8c8-c342-4e1f-b8a2-6c1d2e3f4a5b', required: true };

async function testClinic(api: AdminApi, clinicId: string): Promise<void> {
  const clinic = await request(api, 'adminGetClinic', { id: clinicId });
  if (clinic.mode !== 'test') throw new UsageError(`clinic ${clinicId} is live: listen and trigger work on a test clinic only (its events are sample data)`);
}

interface Envelope {
  id: string;
  eventId: string;
  type: string;
  createdAt: string;
  apiVersion: string;
  livemode: boolean;
  facilityId: string | null;
  data: unknown;
}

export const webhookCommands: Command[] = [
  {
    name: 'listen',
    summary: "Forward a test clinic's events to a local URL, signed as real deliveries, until stopped",
    options: {
      clinic: TEST_CLINIC,
      'forward-to': { description: 'Where to POST each event (http:// and localhost welcome)', example: 'http://localhost:4000/hooks', required: true },
      secret: { description: 'Signing secret (default: a new one, printed)', example: 'whsec_local_testing_secret_0123456789' },
      'max-events': { description: 'Stop after forwarding this many events (default: never)', example: '10' },
    },
    notes: [
      'Events created from now on are forwarded, oldest first, each as one delivery: a new X-Service-Idempotency-Key,',
      'X-Service-Timestamp and X-Service-Signature (v1=HMAC-SHA256 with the printed secret). Verify them with verifyWebhook.',
      'Make events with the API (a test key), or with: dental-clinic trigger <event-type> --clinic <id>',
    ],
    async run(c, args, json) {
      const clinicId = str(args.clinic)!;
      const target = str(args['forward-to'])!;
      try {
        if (!/^https?:$/.test(new URL(target).protocol)) throw new Error();
      } catch {
        throw new UsageError(`--forward-to must be an http:// or https:// URL, got "${redactUrl(target)}"`);
      }
      const max = args['max-events'] === undefined ? Infinity : Number(args['max-events']);
      if (!(max > 0 && Number.isInteger(max)) && max !== Infinity) throw new UsageError('--max-events must be a whole number above 0');
      await testClinic(c.api, clinicId);
      const [{ generateSecret, deliveryHeaders }, { USER_AGENT }] = await Promise.all([
        import('../../modules/webhooks/index.js'),
        import('../../modules/webhooks/index.js'),
      ]);
      const secret = str(args.secret) ?? generateSecret();
      let since = new Date().toISOString();
      // The signing secret is printed on purpose (the receiver verifies with it); the target's credentials are not.
      const ready = { listening: redactUrl(target), clinicId, secret };
      if (json) console.log(JSON.stringify(ready));
      else console.log(`Forwarding the events of clinic ${clinicId} to ${ready.listening}\nSigning secret: ${secret}\n(Ctrl-C to stop)`);

      let stop = false;
      process.once('SIGINT', () => (stop = true));
      const seen = new Set<string>();
      let forwarded = 0;
      while (!stop && forwarded < max) {
        const page = await request(c.api, 'adminListEvents', { clinicId, updatedSince: since, limit: '200' });
        for (const e of page.data as Envelope[]) {
          if (seen.has(e.eventId) || forwarded >= max) continue;
          seen.add(e.eventId);
          since = e.createdAt;
          // The envelope of a real delivery: `id` is the delivery (its idempotency key), `eventId` the event.
          const deliveryId = randomUUID();
          const body = JSON.stringify({ ...e, id: deliveryId });
          let status: number | string;
          try {
            const res = await fetch(target, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...deliveryHeaders(deliveryId, body, [secret], new Date()) },
              body,
              redirect: 'manual',
              signal: AbortSignal.timeout(10_000),
            });
            status = res.status;
          } catch (error) {
            status = `failed: ${redact(((error as Error).cause as Error | undefined)?.message ?? (error as Error).message)}`;
          }
          forwarded++;
          if (json) console.log(JSON.stringify({ eventId: e.eventId, type: e.type, deliveryId, status }));
          else console.log(`${new Date().toISOString()}  ${e.type.padEnd(32)} ${e.eventId}  -> ${status}`);
        }
        if (forwarded < max && !stop) await new Promise((r) => setTimeout(r, 500));
      }
    },
  },
  {
    name: 'trigger',
    summary: 'Make a sample event of a type in a test clinic (destinations and listen receive it)',
    options: {
      type: { description: 'Event type, e.g. appointment.created', example: 'appointment.created', required: true },
      clinic: TEST_CLINIC,
      facility: { description: 'Facility id of the event (default none)', example: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f' },
    },
    notes: [
      'Its data has the type’s shape: the example of the OpenAPI webhooks section, with fresh ids and the facility given. Also: dental-clinic trigger <event-type> --clinic <id>.',
    ],
    async run(c, args, json) {
      const clinicId = str(args.clinic)!;
      await testClinic(c.api, clinicId);
      const body: Record<string, unknown> = { type: str(args.type) };
      if (str(args.facility)) body.facilityId = str(args.facility);
      printResult(await request(c.api, 'adminTriggerEvent', { clinicId }, body), json);
    },
  },
];
