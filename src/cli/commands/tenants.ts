/** CLI: organizations, clinics, facilities, doctors, chairs, staff, keys, access log. */
import { migrate } from '../../db/migrate.js';
import { listAccessLog } from '../../modules/access-log/service.js';
import * as keys from '../../modules/auth/keys-service.js';
import { SCOPES } from '../../modules/auth/scopes.js';
import * as clinics from '../../modules/clinics/service.js';
import type { Command } from '../commands.js';
import { printResult } from '../output.js';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const bool = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : undefined);
const int = (name: string, v: unknown) => {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new Error(`--${name} must be a whole number or "none"`);
  return Number(v);
};
const list = (v: unknown) => (Array.isArray(v) ? v.flatMap((s) => String(s).split(',')) : typeof v === 'string' ? v.split(',') : undefined);

const KEY_COLUMNS = ['id', 'name', 'kind', 'prefix', 'scopes', 'facilityIds', 'expiresAt', 'revokedAt'];

export const tenantCommands: Command[] = [
  {
    name: 'migrate',
    summary: 'Apply pending database migrations',
    options: {},
    async run(ctx, _args, json) {
      const applied = await migrate(ctx.database);
      printResult(
        applied.map((file) => ({ applied: file })),
        json,
      );
    },
  },
  {
    name: 'clinics list',
    summary: 'List clinics',
    options: {},
    async run(ctx, _args, json) {
      printResult(await clinics.listClinics(ctx.db), json, ['id', 'name', 'mode', 'planActive', 'patientLimit', 'aiEnabled', 'suspended']);
    },
  },
  {
    name: 'clinics create',
    summary: 'Create a clinic (and its organization unless --organization is given)',
    options: {
      name: { type: 'string', description: 'Clinic name', required: true },
      organization: { type: 'string', description: 'Organization id' },
      mode: { type: 'string', description: 'live (default) or test' },
      'patient-limit': { type: 'string', description: 'Maximum number of patients, or "none"' },
    },
    async run(ctx, args, json) {
      const mode = str(args.mode) ?? 'live';
      if (mode !== 'live' && mode !== 'test') throw new Error('--mode must be live or test');
      const clinic = await clinics.createClinic(ctx.db, {
        name: str(args.name)!,
        organizationId: str(args.organization),
        mode,
        patientLimit: int('patient-limit', args['patient-limit']),
      });
      printResult(clinic, json);
    },
  },
  {
    name: 'clinics update',
    summary: 'Change a clinic: plan, patient limit, AI processing, name',
    options: {
      id: { type: 'string', description: 'Clinic id', required: true },
      name: { type: 'string', description: 'New name' },
      'plan-active': { type: 'string', description: 'true or false' },
      'patient-limit': { type: 'string', description: 'A number, or "none"' },
      'ai-enabled': { type: 'string', description: 'true or false' },
    },
    async run(ctx, args, json) {
      const clinic = await clinics.updateClinic(ctx.db, str(args.id)!, {
        name: str(args.name),
        planActive: bool(args['plan-active']),
        patientLimit: int('patient-limit', args['patient-limit']),
        aiEnabled: bool(args['ai-enabled']),
      });
      printResult(clinic, json);
    },
  },
  {
    name: 'organizations suspend',
    summary: 'Suspend (or with --off reinstate) an organization',
    options: { id: { type: 'string', description: 'Organization id', required: true }, off: { type: 'boolean', description: 'Reinstate instead' } },
    async run(ctx, args, json) {
      printResult(await clinics.setOrganizationSuspended(ctx.db, str(args.id)!, !args.off), json);
    },
  },
  {
    name: 'facilities create',
    summary: 'Create a facility of a clinic',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      name: { type: 'string', description: 'Facility name', required: true },
      city: { type: 'string', description: 'City' },
      main: { type: 'boolean', description: 'The main location' },
    },
    async run(ctx, args, json) {
      printResult(await clinics.createFacility(ctx.db, str(args.clinic)!, { name: str(args.name)!, city: str(args.city), isMainLocation: !!args.main }), json);
    },
  },
  {
    name: 'facilities list',
    summary: 'List the facilities of a clinic',
    options: { clinic: { type: 'string', description: 'Clinic id', required: true } },
    async run(ctx, args, json) {
      printResult(await clinics.listFacilities(ctx.db, str(args.clinic)!), json);
    },
  },
  {
    name: 'doctors create',
    summary: 'Create a doctor',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      'first-name': { type: 'string', description: 'First name', required: true },
      'last-name': { type: 'string', description: 'Last name', required: true },
      facility: { type: 'string', description: 'Facility id' },
    },
    async run(ctx, args, json) {
      printResult(
        await clinics.createDoctor(ctx.db, str(args.clinic)!, {
          firstName: str(args['first-name'])!,
          lastName: str(args['last-name'])!,
          facilityId: str(args.facility),
        }),
        json,
      );
    },
  },
  {
    name: 'chairs create',
    summary: 'Create a chair of a facility',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      facility: { type: 'string', description: 'Facility id', required: true },
      name: { type: 'string', description: 'Chair name', required: true },
    },
    async run(ctx, args, json) {
      printResult(await clinics.createChair(ctx.db, str(args.clinic)!, { facilityId: str(args.facility)!, name: str(args.name)! }), json);
    },
  },
  {
    name: 'staff create',
    summary: 'Create a staff profile',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      'first-name': { type: 'string', description: 'First name', required: true },
      'last-name': { type: 'string', description: 'Last name', required: true },
      email: { type: 'string', description: 'Email' },
      role: { type: 'string', description: 'Role (default staff)' },
    },
    async run(ctx, args, json) {
      printResult(
        await clinics.createStaffProfile(ctx.db, str(args.clinic)!, {
          firstName: str(args['first-name'])!,
          lastName: str(args['last-name'])!,
          email: str(args.email),
          role: str(args.role),
        }),
        json,
      );
    },
  },
  {
    name: 'keys create',
    summary: 'Issue an API key (the token is shown once)',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      name: { type: 'string', description: 'Key name', required: true },
      scopes: { type: 'string', description: `Comma-separated scopes, or "all" (${SCOPES.join(', ')})`, required: true, multiple: true },
      facilities: { type: 'string', description: 'Comma-separated facility ids (default: all)', multiple: true },
      'expires-at': { type: 'string', description: 'Expiry, ISO 8601' },
    },
    async run(ctx, args, json) {
      const scopes = list(args.scopes)!;
      const expires = str(args['expires-at']);
      const key = await keys.createApiKey(ctx.db, str(args.clinic)!, {
        name: str(args.name)!,
        scopes: scopes.length === 1 && scopes[0] === 'all' ? [...SCOPES] : scopes,
        facilityIds: list(args.facilities) ?? null,
        expiresAt: expires ? new Date(expires) : null,
      });
      printResult(key, json, ['id', 'kind', 'token', 'scopes', 'facilityIds', 'expiresAt']);
    },
  },
  {
    name: 'keys list',
    summary: 'List the API keys of a clinic',
    options: { clinic: { type: 'string', description: 'Clinic id', required: true } },
    async run(ctx, args, json) {
      printResult(await keys.listApiKeys(ctx.db, str(args.clinic)!), json, KEY_COLUMNS);
    },
  },
  {
    name: 'keys revoke',
    summary: 'Revoke an API key',
    options: { id: { type: 'string', description: 'Key id', required: true } },
    async run(ctx, args, json) {
      printResult(await keys.revokeApiKey(ctx.db, str(args.id)!), json, KEY_COLUMNS);
    },
  },
  {
    name: 'keys replace',
    summary: 'Issue a new key with the same settings and revoke the old one',
    options: { id: { type: 'string', description: 'Key id', required: true } },
    async run(ctx, args, json) {
      printResult(await keys.replaceApiKey(ctx.db, str(args.id)!), json, ['id', 'kind', 'token', 'scopes', 'facilityIds']);
    },
  },
  {
    name: 'access-log',
    summary: 'Read the access log of a clinic, newest first',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      resource: { type: 'string', description: 'Only reads of this resource id' },
      limit: { type: 'string', description: 'How many entries (default 50)' },
    },
    async run(ctx, args, json) {
      const entries = await listAccessLog(ctx.db, str(args.clinic)!, { resourceId: str(args.resource), limit: int('limit', args.limit) ?? 50 });
      printResult(entries, json, ['at', 'resourceType', 'resourceIds', 'fields', 'apiKeyId', 'requestId']);
    },
  },
];
