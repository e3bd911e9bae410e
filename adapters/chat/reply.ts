import type { Incident, IncidentSummary, ResolutionStage } from '../../src/domain/model/incident.js';
import type { Service, ServiceDetail } from '../../src/domain/model/service.js';

/** The incident forms: open one, change one (and post an update), resolve one. */
export type FormKind = 'new' | 'update' | 'resolve';

/** A form to show, with what it is prefilled from. */
export interface IncidentForm {
  kind: FormKind;
  /** The incident an update or resolve form is about. */
  incident: Incident | null;
  /** The services a new incident may be opened on, and the one chosen already. */
  services: readonly Service[];
  service: Service | null;
  /** The stage the form shows, to tell on submission whether the user moved it. */
  stage: ResolutionStage | null;
  /** A new incident's lead, named with the command that opened the form (the platform's user id). */
  lead?: string | null;
}

/** What a submitted form carries back from where it was opened. */
export interface FormRef {
  kind: FormKind;
  incidentId: number | null;
  serviceId: number | null;
  shownStage: ResolutionStage | null;
  /** A new incident's lead, carried from the command that opened the form. */
  lead?: string | null;
}

/** The fields of the incident forms, by the names both platforms give their inputs. */
export const FORM_FIELDS = ['service', 'title', 'severity', 'stage', 'description', 'message'] as const;
export type FormField = (typeof FORM_FIELDS)[number];
/** The submitted values; a field left empty is absent. */
export type FormValues = Partial<Record<FormField, string>>;

/** A text document as a chat platform takes a file. */
export interface ChatFile {
  filename: string;
  title: string;
  content: string;
  /** The media type, for platforms that take one. */
  type: string;
}

/**
 * What a verb answers, free of any platform: each platform renders it
 * (Block Kit, embeds). Texts are already written in the platform's markup.
 */
export type ChatReply =
  | { kind: 'text'; text: string }
  | { kind: 'incidents'; incidents: readonly IncidentSummary[] }
  /** `actions`: the incident is the company's own, so its buttons are offered. */
  | { kind: 'incident'; incident: Incident; actions: boolean }
  /** `open` is null when the company's plan does not show the service's incidents. */
  | { kind: 'service'; service: ServiceDetail; open: readonly IncidentSummary[] | null }
  | { kind: 'form'; form: IncidentForm }
  /**
   * A document to post as a file in the channel asked from, introduced by `comment`;
   * `posted` and `failed` tell whoever asked how it went.
   */
  | { kind: 'file'; file: ChatFile; comment: string; posted: string; failed: string }
  /** A refusal; `fields` holds the messages of a form's inputs, by field. */
  | { kind: 'error'; text: string; fields: Partial<Record<FormField, string>> };

export const textReply = (text: string): ChatReply => ({ kind: 'text', text });
