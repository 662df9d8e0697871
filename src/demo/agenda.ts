/**
 * The demo clinic's people and agenda, so a newcomer can run a whole phone call at
 * once: opening hours, doctors, chairs, calendars (bookable services) with working hours over
 * the coming weeks, about 50 patients, appointments, a chat conversation with messages, tasks,
 * a payment plan, and a voice agent key. Kept apart from clinic.ts so other areas add their own
 * demo rows in functions of their own.
 */
import { FIRST_NAMES, LAST_NAMES } from './names.js';
import { SILENT_LOGGER } from '../core/actor.js';
import type { Db } from '../db/transaction.js';
import type { WeekSchedule } from '../db/tables/agenda.js';
import { backOfficeActor } from '../modules/clinics/index.js';
import { createApiKey } from '../modules/auth/index.js';
import { createPaymentPlan } from '../modules/billing/index.js';
import { insertAppointment, type AppointmentInsert } from '../modules/appointments/index.js';
import { createCalendar, freeSlots, bookableWindow } from '../modules/calendars/index.js';
import { slotAppointment } from '../modules/scheduling/index.js';
import { createChair } from '../modules/chairs/index.js';
import { openConversation, recordMessage } from '../modules/conversations/index.js';
import { createDoctor } from '../modules/doctors/index.js';
import { updateFacility } from '../modules/facilities/index.js';
import { importPatients } from '../modules/patients/index.js';
import { createStaffProfile } from '../modules/staff/index.js';
import { createTask } from '../modules/tasks/index.js';

/** Scopes of the demo's voice agent key: what a phone call needs, nothing clinical. */
export const VOICE_AGENT_SCOPES = [
  'appointments:read',
  'appointments:write',
  'patients:read',
  'patients:write',
  'leads:read',
  'leads:write',
  'calls:read',
  'calls:write',
  'clinic:read',
  'tasks:read',
] as const;

/** The caller of the README's first five minutes: a demo patient with a known number. */
const DEMO_CALLER = { firstName: 'Giulia', lastName: 'Rossi', phone: '+39 333 123 4567' };

const WEEKDAYS = (intervals: Array<{ open: string; close: string }>, saturday?: Array<{ open: string; close: string }>): WeekSchedule => ({
  mon: intervals,
  tue: intervals,
  wed: intervals,
  thu: intervals,
  fri: intervals,
  ...(saturday ? { sat: saturday } : {}),
});
const OPENING = WEEKDAYS(
  [
    { open: '09:00', close: '13:00' },
    { open: '14:00', close: '19:00' },
  ],
  [{ open: '09:00', close: '13:00' }],
);

interface DemoAgenda {
  /** null when the seed was asked for no voice agent key (a reset keeps the clinic's keys). */
  voiceToken: string | null;
  calendarIds: string[];
  /** The demo's patients, the caller of the README's call first. */
  patientIds: string[];
}

export async function seedDemoAgenda(
  db: Db,
  clinicId: string,
  facilityIds: string[],
  region: string,
  options: { voiceKey: boolean } = { voiceKey: true },
): Promise<DemoAgenda> {
  // The seed acts as the clinic's back office; nothing it does pages, and its lines go nowhere.
  const scope = await backOfficeActor(db, clinicId, { region, cursorSecret: 'demo-seed-unused' }, 'demo-seed', SILENT_LOGGER);
  const [main, second] = facilityIds as [string, string];
  for (const id of facilityIds) await updateFacility(db, scope, id, { workingSchedule: OPENING }, null);

  const bianchi = await createDoctor(db, clinicId, {
    firstName: 'Laura',
    lastName: 'Bianchi',
    displayName: 'Dott.ssa Laura Bianchi',
    specialty: 'Igiene dentale',
    facilityId: main,
  });
  const esposito = await createDoctor(db, clinicId, { firstName: 'Paolo', lastName: 'Esposito', specialty: 'Odontoiatria generale', facilityId: main });
  const ferri = await createDoctor(db, clinicId, {
    firstName: 'Anna',
    lastName: 'Ferri',
    displayName: 'Dott.ssa Anna Ferri',
    specialty: 'Ortodonzia',
    facilityId: second,
  });
  const chair1 = await createChair(db, clinicId, { name: 'Poltrona 1', facilityId: main });
  const chair2 = await createChair(db, clinicId, { name: 'Poltrona 2', facilityId: main });
  const chair3 = await createChair(db, clinicId, { name: 'Poltrona Monza', facilityId: second });
  const reception = await createStaffProfile(db, clinicId, { firstName: 'Marta', lastName: 'Galli', role: 'reception', facilityId: main });
  await createStaffProfile(db, clinicId, { firstName: 'Giorgio', lastName: 'Conti', role: 'manager' });

  const hygiene = await createCalendar(db, scope, {
    facilityId: main,
    name: 'Igiene orale',
    description: 'Pulizia professionale dei denti con l’igienista: rimozione di tartaro e macchie, consigli per la cura a casa.',
    slotMinutes: 45,
    type: 'treatment',
    category: 'standard',
    workingHours: WEEKDAYS([
      { open: '09:00', close: '12:45' },
      { open: '14:00', close: '18:30' },
    ]),
    doctorIds: [bianchi.id],
    chairIds: [chair1.id],
    minNoticeMinutes: 120,
    horizonDays: 60,
    cancellationNoticeMinutes: 1440,
    keywords: ['pulizia', 'igiene', 'detartrasi', 'tartaro', 'macchie'],
  });
  const firstVisit = await createCalendar(db, scope, {
    facilityId: main,
    name: 'Prima visita',
    description: 'Visita di controllo con il dentista e piano di cura, per chi viene per la prima volta o da tempo non viene.',
    slotMinutes: 30,
    type: 'consultation',
    category: 'first_visit',
    workingHours: WEEKDAYS(
      [
        { open: '09:00', close: '13:00' },
        { open: '14:00', close: '19:00' },
      ],
      [{ open: '09:00', close: '13:00' }],
    ),
    doctorIds: [esposito.id],
    chairIds: [chair2.id],
    minNoticeMinutes: 60,
    horizonDays: 45,
    cancellationNoticeMinutes: 720,
    keywords: ['prima visita', 'visita', 'controllo', 'preventivo', 'check-up'],
  });
  const urgent = await createCalendar(db, scope, {
    facilityId: main,
    name: 'Urgenze',
    description: 'Per dolore, gonfiore, un dente rotto o un’otturazione persa: visita il prima possibile.',
    slotMinutes: 30,
    type: 'emergency',
    category: 'standard',
    workingHours: WEEKDAYS([
      { open: '12:00', close: '13:00' },
      { open: '18:00', close: '19:00' },
    ]),
    doctorIds: [esposito.id],
    chairIds: [chair2.id],
    minNoticeMinutes: 0,
    horizonDays: 7,
    keywords: ['dolore', 'mal di denti', 'urgenza', 'gonfiore', 'dente rotto', 'otturazione'],
  });
  const ortho = await createCalendar(db, scope, {
    facilityId: second,
    name: 'Controllo ortodontico',
    description: 'Controllo dell’apparecchio per i pazienti in cura ortodontica.',
    slotMinutes: 20,
    type: 'checkup',
    category: 'treatment_plan',
    workingHours: { tue: [{ open: '14:00', close: '18:00' }], thu: [{ open: '14:00', close: '18:00' }] },
    doctorIds: [ferri.id],
    chairIds: [chair3.id],
    minNoticeMinutes: 1440,
    horizonDays: 90,
    cancellationNoticeMinutes: 1440,
    // Only the clinic's own integrations book it, and only for patients already in care.
    bookableBy: ['api'],
    takesNewPatients: false,
    keywords: ['apparecchio', 'ortodonzia', 'allineatori'],
  });

  const people = [
    { ...DEMO_CALLER, email: 'giulia.rossi@example.com', dateOfBirth: '1988-04-12' },
    ...Array.from({ length: 49 }, (_, i) => ({
      firstName: FIRST_NAMES[i % FIRST_NAMES.length]!,
      lastName: LAST_NAMES[(i * 7) % LAST_NAMES.length]!,
      phone: `+39 347 ${String(100_0000 + i * 7919).slice(-7)}`,
      dateOfBirth: `${1950 + ((i * 13) % 60)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    })),
  ];
  const { ids: patientIds } = await importPatients(
    db,
    scope,
    people.map((p, i) => ({ ...p, facilityId: i % 5 === 4 ? second : main })),
  );

  // Appointments over the coming two weeks, so availability has gaps and the caller has a next
  // visit: every few free slots of two calendars, inserted in one transaction (the slots were
  // free a moment ago and nobody else writes this new clinic).
  const now = new Date();
  const bookings: AppointmentInsert[] = [];
  for (const [cal, every] of [
    [hygiene, 3],
    [firstVisit, 4],
  ] as const) {
    const window = bookableWindow(cal, now, new Date(now.getTime() + 14 * 86_400_000))!;
    const slots = await freeSlots(db, cal, 'Europe/Rome', window);
    for (let i = 0, p = 0; i < slots.length && p < 12; i += every, p++) {
      const patientId = cal === hygiene && p === 0 ? patientIds[0]! : patientIds[1 + ((p * 3 + (cal === hygiene ? 0 : 1)) % (patientIds.length - 1))]!;
      const slot = slots[i]!;
      bookings.push(slotAppointment(cal, slot, patientId, { origin: 'api', reason: cal === hygiene ? 'Igiene semestrale' : 'Controllo' }));
    }
  }
  await db.transaction().execute(async (trx) => {
    for (const booking of bookings) await insertAppointment(trx, scope, booking);
  });

  const conversation = await openConversation(db, scope, { patientId: patientIds[2]!, facilityId: main });
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();
  await recordMessage(db, scope, conversation.id, { direction: 'in', body: 'Buongiorno, vorrei spostare la pulizia di giovedì.', occurredAt: minutesAgo(30) });
  await recordMessage(db, scope, conversation.id, {
    direction: 'out',
    body: 'Certo! Le propongo martedì alle 10:30 o mercoledì alle 15:00.',
    occurredAt: minutesAgo(29),
  });
  await recordMessage(db, scope, conversation.id, { direction: 'in', body: 'Martedì va benissimo, grazie.', occurredAt: minutesAgo(25) });

  await createTask(db, scope, {
    title: 'Richiamare per il preventivo dell’impianto',
    patientId: patientIds[3]!,
    assigneeId: reception.id,
    dueDate: new Date(now.getTime() + 86_400_000).toISOString(),
  });
  await createTask(db, scope, { title: 'Inviare promemoria richiamo igiene', patientId: patientIds[4]!, type: 'recall' });
  await createTask(db, scope, { title: 'Ordinare materiale per l’ambulatorio', status: 'in_progress', assigneeId: reception.id });

  const month = (n: number) => {
    const d = new Date(now.getTime());
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + n);
    return d.toISOString().slice(0, 10);
  };
  await createPaymentPlan(db, scope, {
    patientId: patientIds[5]!,
    installments: [
      { amount: 400, dueDate: month(0) },
      { amount: 400, dueDate: month(1) },
      { amount: 400, dueDate: month(2) },
    ],
  });

  const voice = options.voiceKey ? await createApiKey(db, clinicId, { name: 'Demo voice agent', scopes: [...VOICE_AGENT_SCOPES], agent: 'voice_agent' }) : null;
  return { voiceToken: voice?.token ?? null, calendarIds: [hygiene.id, firstVisit.id, urgent.id, ortho.id], patientIds };
}
