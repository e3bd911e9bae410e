import type { IncidentEvent, ResolutionStage, Severity } from '../model/incident.js';
import type { CreateIncidentInput, UpdateIncidentInput } from './incident-input.js';

export interface IncidentState {
  title: string;
  status: Severity;
  resolved: boolean;
  resolvedAt: number | null;
}

export interface Transition {
  next: IncidentState;
  /** The update to append to the timeline, when one was posted. */
  update: { stage: ResolutionStage; description: string } | null;
  /** What happened, for notifications; null when nothing changed. */
  event: IncidentEvent | null;
}

/** A new incident: open at the given stage, or resolved at once when the stage is `resolved`. */
export function opening(input: CreateIncidentInput, now: number): Transition {
  const resolved = input.resolution_stage === 'resolved';
  return {
    next: { title: input.title, status: input.status, resolved, resolvedAt: resolved ? now : null },
    update: { stage: input.resolution_stage, description: input.description },
    event: 'created',
  };
}

/**
 * An update: a `resolved` stage resolves an open incident; any other stage on a
 * resolved incident reopens it. Title and severity change in place.
 */
export function applyUpdate(current: IncidentState, input: UpdateIncidentInput, now: number): Transition {
  const next: IncidentState = {
    ...current,
    title: input.title ?? current.title,
    status: input.status ?? current.status,
  };
  const fieldsChanged = next.title !== current.title || next.status !== current.status;

  if (input.resolution_stage === undefined || input.description === undefined) {
    return { next, update: null, event: fieldsChanged ? 'updated' : null };
  }

  const update = { stage: input.resolution_stage, description: input.description };
  if (update.stage === 'resolved') {
    if (current.resolved) return { next, update, event: 'updated' };
    return { next: { ...next, resolved: true, resolvedAt: now }, update, event: 'resolved' };
  }
  if (current.resolved) return { next: { ...next, resolved: false, resolvedAt: null }, update, event: 'reopened' };
  return { next, update, event: 'updated' };
}
