/** Tables added by the agenda module's migrations (see src/db/migrations/0020_agenda.sql). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './core.js';

type Numeric = ColumnType<number, number | string, number | string>;
type GeneratedNumeric = ColumnType<number, number | string | undefined, number | string>;

export interface WorkingInterval {
  open: string;
  close: string;
}
export type WeekSchedule = Partial<Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', WorkingInterval[]>>;

export interface CalendarsTable {
  id: string;
  clinic_id: string;
  facility_id: string;
  name: string;
  slot_minutes: number;
  working_hours: Json<WeekSchedule>;
  doctor_ids: string[];
  chair_ids: ColumnType<string[], string[] | undefined, string[]>;
  min_notice_minutes: Generated<number>;
  horizon_days: Generated<number>;
  cancellation_notice_minutes: Generated<number>;
  active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
  description: ColumnType<string | null, string | null | undefined, string | null>;
  keywords: ColumnType<string[], string[] | undefined, string[]>;
  /** Who may book it through the API: `api` (plain keys), `bot` (chat bot keys), `voice` (voice agent keys). */
  bookable_by: ColumnType<Array<'api' | 'bot' | 'voice'>, Array<'api' | 'bot' | 'voice'> | undefined, Array<'api' | 'bot' | 'voice'>>;
  takes_new_patients: Generated<boolean>;
  appointment_type: ColumnType<string | null, string | null | undefined, string | null>;
  appointment_category: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SlotHoldsTable {
  id: string;
  clinic_id: string;
  facility_id: string;
  calendar_id: string;
  api_key_id: string;
  holder_ref: string;
  doctor_id: string | null;
  chair_id: string | null;
  start_at: ColumnType<Date, Date | string, Date | string>;
  end_at: ColumnType<Date, Date | string, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  appointment_id: string | null;
  created_at: Timestamp;
}

export interface VoiceHandoffsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  api_key_id: string | null;
  call_ref: string;
  reason: string;
  summary: string | null;
  patient_id: string | null;
  lead_id: string | null;
  outcome: 'transfer' | 'callback';
  transfer_to: string | null;
  task_id: string | null;
  created_at: Timestamp;
}

export interface ConversationsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string | null;
  lead_id: string | null;
  phone: string | null;
  bot_state: Generated<'attivo' | 'in_pausa' | 'allo_studio'>;
  bot_paused_until: NullableTimestamp;
  opted_out: Generated<boolean>;
  last_inbound_at: NullableTimestamp;
  last_outbound_at: NullableTimestamp;
  last_activity_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface ChatMessagesTable {
  id: string;
  clinic_id: string;
  conversation_id: string;
  direction: 'in' | 'out';
  author: string;
  type: string;
  body: string | null;
  occurred_at: ColumnType<Date, Date | string, Date | string>;
  media_mime_type: string | null;
  media_duration_seconds: number | null;
  transcription_status: Generated<string>;
  transcription: string | null;
  created_at: Timestamp;
}

export interface TasksTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string | null;
  title: string;
  status: Generated<'todo' | 'in_progress' | 'done'>;
  due_date: NullableTimestamp;
  assignee_id: string | null;
  type: Generated<string>;
  completed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface TreatmentPlansTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  title: string | null;
  total_amount: Numeric;
  status: Generated<'draft' | 'presented' | 'accepted' | 'rejected'>;
  presented_at: NullableTimestamp;
  decided_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface PaymentPlansTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  treatment_plan_id: string | null;
  type: string;
  total_amount: Numeric;
  installment_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface InstallmentsTable {
  id: string;
  clinic_id: string;
  payment_plan_id: string;
  seq: number;
  amount: Numeric;
  amount_paid: GeneratedNumeric;
  /** 'YYYY-MM-DD' */
  due_date: string;
  status: Generated<'pending' | 'partially_paid' | 'paid'>;
  paid_at: NullableTimestamp;
  payment_method: string | null;
  overdue_notified_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface InvoicesTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  number: string;
  total_amount: Numeric;
  amount_paid: GeneratedNumeric;
  status: Generated<'issued' | 'paid'>;
  issued_at: Timestamp;
  paid_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  invoice_id: string | null;
  installment_id: string | null;
  amount: Numeric;
  method: string;
  received_at: Timestamp;
  created_at: Timestamp;
}

export interface AgendaTables {
  calendars: CalendarsTable;
  slot_holds: SlotHoldsTable;
  voice_handoffs: VoiceHandoffsTable;
  conversations: ConversationsTable;
  chat_messages: ChatMessagesTable;
  tasks: TasksTable;
  treatment_plans: TreatmentPlansTable;
  payment_plans: PaymentPlansTable;
  installments: InstallmentsTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
}
