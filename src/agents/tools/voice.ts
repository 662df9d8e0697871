/** The voice agent's own steps: who is calling, give the call to a person, log the call. */
import { CallInputSchema, CallSchema } from '../../modules/calls/index.js';
import { HandoffSchema, NewHandoffSchema, VoiceContextQuerySchema, VoiceContextSchema } from '../../modules/voice/index.js';
import { SAY_TIMES } from '../local-time.js';
import type { AgentTool } from '../tool.js';
import { PATIENT_FROM_CONFIRMED } from './identity.js';

export const VOICE_TOOLS: AgentTool[] = [
  {
    name: 'get_caller_context',
    title: 'Who is calling',
    description: [
      'Call this first, when the phone rings, with the caller’s number (`from`) and the number called (`to`).',
      'It answers the clinic (name, time zone {timeZone}, open now or when it opens next), the caller (`match`: `patient` with first names and next appointments, `lead`, or `unknown`) and whether a person can take the call now (`transfer`).',
      'Greet a known patient by first name only. When `match` is `unknown`, do not guess: ask the caller’s name and use search_patients.',
      SAY_TIMES,
    ],
    operation: { method: 'GET', url: '/v1/voice/context', operationId: 'getVoiceContext' },
    query: VoiceContextQuerySchema,
    output: VoiceContextSchema,
    audience: 'voice',
  },
  {
    name: 'hand_off',
    title: 'Give the call to a person',
    description: [
      'Use when you cannot help (an emergency, the caller asks for a person, billing or clinical questions, you did not understand twice).',
      '`outcome: transfer` gives `transferTo`: say “La passo a un collega” and transfer the call to that number. `outcome: callback` means the clinic is closed: say that the clinic will call back at the next opening (a callback task was created).',
      'One handoff per call: calling it again for the same `callId` answers the first handoff.',
    ],
    operation: { method: 'POST', url: '/v1/voice/handoffs', operationId: 'createVoiceHandoff' },
    body: NewHandoffSchema,
    output: HandoffSchema,
    callIdAs: 'callId',
    audience: 'voice',
    idempotent: true,
  },
  {
    name: 'log_call',
    title: 'Register the call',
    description: [
      'Call once when the call ends, with its outcome (`booked`, `information`, `callback`, …), a short `summary` without clinical details, and the `patientId` or `leadId` you found.',
      '`callId` is the call’s id at the voice provider: registering the same call again changes nothing. Do not read the answer to the caller.',
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'POST', url: '/v1/calls', operationId: 'createCall' },
    body: CallInputSchema,
    output: CallSchema,
    callIdAs: 'externalCallId',
    unshown: ['recordingUrl', 'transcript'],
    audience: 'voice',
    idempotent: true,
  },
];
