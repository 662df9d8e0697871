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
  /** When the holder's first hold was made: a replacement keeps it (migration 0113). */
  first_held_at: Timestamp;
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
  document_id: ColumnType<string | null, string | null | undefined, string | null>;
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
  status: Generated<'draft' | 'presented' | 'accepted' | 'rejected' | 'cancelled'>;
  presented_at: NullableTimestamp;
  decided_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
  number: string;
  doctor_id: string | null;
  /** 'YYYY-MM-DD' */
  valid_until: string | null;
  subtotal_amount: GeneratedNumeric;
  discount_amount: GeneratedNumeric;
  notes: string | null;
  acceptance_channel: string | null;
  /** A document (no foreign key: the documents table came in a later migration). */
  signed_document_id: string | null;
  rejection_reason: string | null;
  rejection_note: string | null;
  cancelled_at: NullableTimestamp;
}

export interface TreatmentPlanItemsTable {
  id: string;
  clinic_id: string;
  treatment_plan_id: string;
  position: number;
  phase: number;
  procedure_code: string | null;
  description: string;
  teeth: ColumnType<number[], number[], number[]>;
  surfaces: ColumnType<string[], string[], string[]>;
  quantity: number;
  unit_amount: Numeric;
  discount_amount: Numeric;
  total_amount: Numeric;
  status: string;
  appointment_id: string | null;
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
  status: Generated<'issued' | 'paid' | 'void'>;
  issued_at: Timestamp;
  paid_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  treatment_plan_id: string | null;
  subtotal_amount: GeneratedNumeric;
  discount_amount: GeneratedNumeric;
  tax_amount: GeneratedNumeric;
  stamp_duty_amount: GeneratedNumeric;
  /** 'YYYY-MM-DD' */
  due_date: string | null;
  voided_at: NullableTimestamp;
}

export interface InvoiceLinesTable {
  id: string;
  clinic_id: string;
  invoice_id: string;
  position: number;
  description: string;
  quantity: number;
  unit_amount: Numeric;
  discount_amount: Numeric;
  vat_rate: Numeric;
  tax_amount: Numeric;
  total_amount: Numeric;
  treatment_plan_item_id: string | null;
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
  reference: string | null;
  payment_plan_id: string | null;
  request_fingerprint: string | null;
}

export interface PaymentAllocationsTable {
  clinic_id: string;
  payment_id: string;
  position: number;
  invoice_id: string | null;
  installment_id: string | null;
  amount: Numeric;
}

export interface BillingCountersTable {
  clinic_id: string;
  kind: string;
  year: number;
  last: number;
}

export interface AgendaTables {
  calendars: CalendarsTable;
  slot_holds: SlotHoldsTable;
  voice_handoffs: VoiceHandoffsTable;
  conversations: ConversationsTable;
  chat_messages: ChatMessagesTable;
  tasks: TasksTable;
  treatment_plans: TreatmentPlansTable;
  treatment_plan_items: TreatmentPlanItemsTable;
  invoice_lines: InvoiceLinesTable;
  payment_allocations: PaymentAllocationsTable;
  billing_counters: BillingCountersTable;
  payment_plans: PaymentPlansTable;
  installments: InstallmentsTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
}
