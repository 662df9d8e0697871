/**
 * Typed factories: each test makes its own clinic, so tests never see each other's rows.
 * They call the same service functions as the back-office API and the CLI.
 */
import { createApiKey, revokeApiKey } from '../../src/modules/auth/keys-service.js';
import { SCOPES, type Scope } from '../../src/modules/auth/scopes.js';
import { createClinic } from '../../src/modules/clinics/service.js';
import { createDoctor } from '../../src/modules/doctors/service.js';
import { createFacility } from '../../src/modules/facilities/service.js';
import { createStaffProfile } from '../../src/modules/staff/service.js';
import type { NewClinic } from '../../src/modules/clinics/schema.js';
import type { TestServer } from './server.js';

export interface Tenant {
  clinicId: string;
  organizationId: string;
  /** Two facilities: [main, second]. */
  facilityIds: [string, string];
  doctorId: string;
  staffId: string;
  /** A key with every scope and every facility. */
  token: string;
  keyId: string;
}

let counter = 0;

export class Factories {
  constructor(private readonly server: TestServer) {}

  private get db() {
    return this.server.ctx.db;
  }

  async tenant(clinic: Partial<NewClinic> = {}): Promise<Tenant> {
    counter += 1;
    const c = await createClinic(this.db, { name: `Studio Test ${counter}`, ...clinic });
    const f1 = await createFacility(this.db, { clinicId: c.id, region: 'IT' }, { name: 'Sede Centro', city: 'Milano', isMainLocation: true });
    const f2 = await createFacility(this.db, { clinicId: c.id, region: 'IT' }, { name: 'Sede Nord', city: 'Monza' });
    const doctor = await createDoctor(this.db, c.id, { firstName: 'Laura', lastName: 'Bianchi', facilityId: f1.id });
    const staff = await createStaffProfile(this.db, c.id, { firstName: 'Marco', lastName: 'Verdi' });
    const key = await createApiKey(this.db, c.id, { name: 'all scopes', scopes: [...SCOPES] });
    return {
      clinicId: c.id,
      organizationId: c.organizationId,
      facilityIds: [f1.id, f2.id],
      doctorId: doctor.id,
      staffId: staff.id,
      token: key.token,
      keyId: key.id,
    };
  }

  /** A key of the clinic with exactly these scopes (and facilities, when limited). */
  async key(
    clinicId: string,
    scopes: readonly Scope[],
    facilityIds: string[] | null = null,
    expiresAt: Date | null = null,
  ): Promise<{ token: string; id: string }> {
    const key = await createApiKey(this.db, clinicId, { name: `key ${++counter}`, scopes: [...scopes], facilityIds, expiresAt });
    return { token: key.token, id: key.id };
  }

  /** Every scope but these. */
  async keyWithout(clinicId: string, missing: readonly Scope[]): Promise<{ token: string; id: string }> {
    return this.key(
      clinicId,
      SCOPES.filter((s) => !missing.includes(s)),
    );
  }

  async revokedKey(clinicId: string): Promise<string> {
    const key = await this.key(clinicId, [...SCOPES]);
    await revokeApiKey(this.db, key.id);
    this.server.ctx.authenticator.invalidate();
    return key.token;
  }
}
