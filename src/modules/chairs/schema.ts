/** Chairs (a facility's dental units) on the wire: as /v1 lists them and as the back office creates and lists them. */
import { Type, type Static } from 'typebox';
import { OutputTimestamp, Uuid } from '../../core/schemas.js';

export const ChairSchema = Type.Object(
  { id: Uuid(), name: Type.String(), facilityId: Uuid(), active: Type.Boolean(), updatedAt: OutputTimestamp() },
  {
    additionalProperties: false,
    title: 'Chair',
    examples: [
      {
        id: '8e7d6c5b-4a3f-4e2d-9c1b-0a9f8e7d6c5b',
        name: 'Poltrona 1',
        facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
        active: true,
        updatedAt: '2026-02-01T09:00:00.000Z',
      },
    ],
  },
);
export type ChairView = Static<typeof ChairSchema>;

/** A chair as the back office answers its creation and lists it. */
export const ChairAdminSchema = Type.Object({ id: Uuid(), facilityId: Uuid(), name: Type.String() }, { additionalProperties: false });
export type ChairAdminView = Static<typeof ChairAdminSchema>;
export const NewChairSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), facilityId: Uuid() }, { additionalProperties: false });
export type NewChair = Static<typeof NewChairSchema>;
