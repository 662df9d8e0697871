/** CLI: organizations, clinics, facilities, doctors, chairs, staff, keys, the access log, migrations. */
import { request } from '../admin-api.js';
import { list, str, type Command } from '../commands.js';
import { printResult, UsageError } from '../output.js';

const bool = (name: string, v: unknown) => {
  if (v === undefined) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new UsageError(`--${name} must be true or false`);
};
const int = (name: string, v: unknown) => {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number or "none"`);
  return Number(v);
};
/** Drops the fields not given, so the back office applies its defaults. */
const given = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

const CLINIC = { description: 'Clinic id', example: '0f8c2a4e-7d51-4c3b-9a1e-5b6d7c8e9f01', required: true };
const KEY_COLUMNS = ['id', 'name', 'kind', 'prefix', 'scopes', 'facilityIds', 'revokedAt'];

export const tenantCommands: Command[] = [
  {
    name: 'migrate',
    summary: 'Apply pending database migrations (a running service applied them at its start)',
    options: {},
    async run(c, _args, json) {
      if (!c.ctx) {
        printResult({ migrations: `applied by ${c.api.target} at its start` }, json);
        return;
      }
      const { migrate } = await import('../../db/migrate.js');
      printResult(
        (await migrate(c.ctx.database)).map((file) => ({ applied: file })),
        json,
      );
    },
  },
  {
    name: 'clinics list',
    summary: 'List clinics, oldest first',
    options: {},
    async run(c, _args, json) {
      printResult((await request(c.api, 'adminListClinics', {})).data, json, ['id', 'name', 'mode', 'planActive', 'patientLimit', 'aiEnabled', 'suspended']);
    },
  },
  {
    name: 'clinics create',
    summary: 'Create a clinic (and its organization unless --organization is given)',
    options: {
      name: { description: 'Clinic name', example: 'Studio Dentistico Bianchi', required: true },
      organization: { description: 'Organization id (default: a new one)', example: '5a1d3c2b-8e4f-4a6b-9c7d-0e1f2a3b4c5d' },
      mode: { description: 'live (default) or test', example: 'live' },
      'patient-limit': { description: 'Maximum number of patients, or "none" (default)', example: '5000' },
      timezone: { description: 'IANA time zone (default Europe/Rome)', example: 'Europe/Rome' },
    },
    async run(c, args, json) {
      const body = given({
        name: str(args.name),
        organizationId: str(args.organization),
        mode: str(args.mode),
        patientLimit: int('patient-limit', args['patient-limit']),
        timezone: str(args.timezone),
      });
      printResult(await request(c.api, 'adminCreateClinic', {}, body), json);
    },
  },
  {
    name: 'clinics update',
    summary: 'Change a clinic: plan, patient limit, AI processing, name',
    options: {
      clinic: CLINIC,
      name: { description: 'New name', example: 'Studio Dentistico Bianchi & Figli' },
      'plan-active': { description: 'true or false', example: 'true' },
      'patient-limit': { description: 'A number, or "none"', example: 'none' },
      'ai-enabled': { description: 'true or false', example: 'false' },
    },
    async run(c, args, json) {
      const body = given({
        name: str(args.name),
        planActive: bool('plan-active', args['plan-active']),
        patientLimit: int('patient-limit', args['patient-limit']),
        aiEnabled: bool('ai-enabled', args['ai-enabled']),
      });
      printResult(await request(c.api, 'adminUpdateClinic', { id: str(args.clinic)! }, body), json);
    },
  },
  {
    name: 'organizations suspend',
    summary: 'Suspend (or with --off reinstate) an organization and every clinic in it',
    options: {
      id: { description: 'Organization id', example: '5a1d3c2b-8e4f-4a6b-9c7d-0e1f2a3b4c5d', required: true },
      off: { description: 'Reinstate instead', flag: true },
    },
    async run(c, args, json) {
      printResult(await request(c.api, 'adminUpdateOrganization', { id: str(args.id)! }, { suspended: !args.off }), json);
    },
  },
  {
    name: 'facilities create',
    summary: 'Create a facility (a location) of a clinic',
    options: {
      clinic: CLINIC,
      name: { description: 'Facility name', example: 'Sede di Bergamo', required: true },
      street: { description: 'Street and number', example: 'Via XX Settembre 14' },
      city: { description: 'City', example: 'Bergamo' },
      phone: { description: 'Phone (stored in E.164)', example: '+39 035 123 4567' },
      main: { description: 'The main location', flag: true },
    },
    async run(c, args, json) {
      const body = given({
        name: str(args.name),
        street: str(args.street),
        city: str(args.city),
        phone: str(args.phone),
        isMainLocation: args.main ? true : undefined,
      });
      printResult(await request(c.api, 'adminCreateFacility', { clinicId: str(args.clinic)! }, body), json);
    },
  },
  {
    name: 'facilities list',
    summary: 'List the facilities of a clinic, oldest first',
    options: { clinic: CLINIC },
    async run(c, args, json) {
      printResult((await request(c.api, 'adminListFacilities', { clinicId: str(args.clinic)! })).data, json, ['id', 'name', 'city', 'phone', 'isMainLocation']);
    },
  },
  {
    name: 'doctors create',
    summary: 'Create a doctor',
    options: {
      clinic: CLINIC,
      'first-name': { description: 'First name', example: 'Giulia', required: true },
      'last-name': { description: 'Last name', example: 'Ferri', required: true },
      facility: { description: 'Facility id (default: every facility)', example: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f' },
      specialty: { description: 'Specialty', example: 'Ortodonzia' },
      'display-name': { description: 'How patients and agents hear the doctor named (default "Dott. <first> <last>")', example: 'Dott.ssa Giulia Ferri' },
    },
    async run(c, args, json) {
      const body = given({
        firstName: str(args['first-name']),
        lastName: str(args['last-name']),
        facilityId: str(args.facility),
        specialty: str(args.specialty),
        displayName: str(args['display-name']),
      });
      printResult(await request(c.api, 'adminCreateDoctor', { clinicId: str(args.clinic)! }, body), json);
    },
  },
  {
    name: 'doctors update',
    summary: 'Change a doctor: names, the display name patients and agents hear, specialty, facility',
    options: {
      clinic: CLINIC,
      id: { description: 'Doctor id', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', required: true },
      'first-name': { description: 'First name', example: 'Laura' },
      'last-name': { description: 'Last name', example: 'Bianchi' },
      'display-name': { description: 'How patients and agents hear the doctor named ("" for the default)', example: 'Dott.ssa Laura Bianchi' },
      specialty: { description: 'Specialty', example: 'Ortodonzia' },
      facility: { description: 'Facility id', example: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f' },
    },
    async run(c, args, json) {
      const displayName = str(args['display-name']);
      const body = given({
        firstName: str(args['first-name']),
        lastName: str(args['last-name']),
        displayName: displayName === '' ? null : displayName,
        specialty: str(args.specialty),
        facilityId: str(args.facility),
      });
      printResult(await request(c.api, 'adminUpdateDoctor', { clinicId: str(args.clinic)!, id: str(args.id)! }, body), json);
    },
  },
  {
    name: 'chairs create',
    summary: 'Create a chair (a dental unit) of a facility',
    options: {
      clinic: CLINIC,
      facility: { description: 'Facility id', example: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f', required: true },
      name: { description: 'Chair name', example: 'Riunito 2', required: true },
    },
    async run(c, args, json) {
      printResult(await request(c.api, 'adminCreateChair', { clinicId: str(args.clinic)! }, { facilityId: str(args.facility), name: str(args.name) }), json);
    },
  },
  {
    name: 'staff create',
    summary: 'Create a staff profile (task assignee, lead owner)',
    options: {
      clinic: CLINIC,
      'first-name': { description: 'First name', example: 'Paola', required: true },
      'last-name': { description: 'Last name', example: 'Conti', required: true },
      email: { description: 'Email', example: 'paola.conti@studio-bianchi.example' },
      role: { description: 'Role (default staff)', example: 'receptionist' },
    },
    async run(c, args, json) {
      const body = given({ firstName: str(args['first-name']), lastName: str(args['last-name']), email: str(args.email), role: str(args.role) });
      printResult(await request(c.api, 'adminCreateStaffProfile', { clinicId: str(args.clinic)! }, body), json);
    },
  },
  {
    name: 'keys create',
    summary: 'Issue an API key (the token is shown once)',
    options: {
      clinic: CLINIC,
      name: { description: 'Key name', example: 'Voice agent', required: true },
      scopes: { description: 'Comma-separated scopes, or "all"', example: 'patients:read,appointments:read,appointments:write', required: true },
      facilities: { description: 'Comma-separated facility ids (default: every facility)', example: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f' },
      'expires-at': { description: 'Expiry, ISO 8601', example: '2027-12-31T23:59:59Z' },
    },
    async run(c, args, json) {
      const { SCOPES } = await import('../../modules/auth/index.js');
      const scopes = list(args.scopes)!;
      const body = given({
        name: str(args.name),
        scopes: scopes.length === 1 && scopes[0] === 'all' ? [...SCOPES] : scopes,
        facilityIds: list(args.facilities),
        expiresAt: str(args['expires-at']),
      });
      const key = await request(c.api, 'adminCreateApiKey', { clinicId: str(args.clinic)! }, body);
      printResult(key, json);
    },
  },
  {
    name: 'keys list',
    summary: "List a clinic's API keys, oldest first",
    options: { clinic: CLINIC },
    async run(c, args, json) {
      printResult((await request(c.api, 'adminListApiKeys', { clinicId: str(args.clinic)! })).data, json, KEY_COLUMNS);
    },
  },
  {
    name: 'keys revoke',
    summary: 'Revoke an API key',
    options: { id: { description: 'Key id', example: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', required: true } },
    async run(c, args, json) {
      printResult(await request(c.api, 'adminRevokeApiKey', { id: str(args.id)! }), json);
    },
  },
  {
    name: 'keys replace',
    summary: 'Issue a new key with the same settings and revoke the old one',
    options: { id: { description: 'Key id', example: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', required: true } },
    async run(c, args, json) {
      const key = await request(c.api, 'adminReplaceApiKey', { id: str(args.id)! });
      printResult(key, json);
    },
  },
  {
    name: 'access-log',
    summary: 'Read the access log of a clinic, newest first',
    options: {
      clinic: CLINIC,
      resource: { description: 'Only reads of this resource id', example: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' },
      limit: { description: 'How many entries (default 50)', example: '20' },
    },
    async run(c, args, json) {
      const query = given({ resourceId: str(args.resource), limit: String(int('limit', args.limit) ?? 50) }) as Record<string, string>;
      const page = await request(c.api, 'adminListAccessLog', { clinicId: str(args.clinic)!, ...query });
      printResult(page.data, json, ['at', 'resourceType', 'resourceIds', 'fields', 'apiKeyId']);
    },
  },
];
