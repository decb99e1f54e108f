/**
 * @module The visitor's thumbs under answers: which answer's comment field is open and why a
 * comment was refused. The ratings themselves are stored with the conversation.
 */
import type { ReactiveControllerHost } from 'lit';
import { FEEDBACK_COMMENT_MAX_LENGTH } from '../../protocol/index.js';
import type { Rating } from '../storage.js';
import type { Strings } from '../strings.js';
import { lengthError } from '../templates/note.js';
import type { ConversationController } from './conversation.js';

export interface FeedbackEvents {
  /** The proxy took a rating (with its comment, if any). */
  rated(messageIndex: number, rating: Rating['rating'], comment: string | null): void;
  failed(error: unknown): void;
}

export class FeedbackController {
  /** The answer whose optional comment field is open (after "not helpful"). */
  commenting: number | null = null;
  /** Why the comment was not sent (undefined when nothing is wrong). */
  error: string | undefined;

  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _chat: ConversationController,
    private readonly _text: () => { t: Strings; lang: string },
    private readonly _events: FeedbackEvents,
  ) {}

  /**
   * Rates the answer at `index`. "down" then offers a comment; the comment form's submit `event`
   * sends its text (refused with a message beyond the limit).
   */
  rate(index: number, rating: Rating['rating'], event?: Event): void {
    let comment = '';
    if (event) {
      event.preventDefault();
      comment = ((event.currentTarget as HTMLFormElement).elements.namedItem('comment') as HTMLTextAreaElement).value.trim();
      const { t, lang } = this._text();
      this.error = lengthError(comment, FEEDBACK_COMMENT_MAX_LENGTH, t, lang);
      this._host.requestUpdate();
      if (this.error) return;
    }
    this._chat.rate(index, rating, comment).then(
      () => {
        this.commenting = rating === 'down' && !event ? index : null;
        this._host.requestUpdate();
        this._events.rated(index, rating, comment || null);
      },
      (error: unknown) => this._events.failed(error),
    );
  }
}
