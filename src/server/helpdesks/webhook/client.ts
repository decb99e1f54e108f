/** @module The `webhook` integration: a signed JSON ticket with transcript and summary, POSTed to a configured URL. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { readCappedText } from '../../../protocol/index.js';
import { resolveAll } from '../targets.js';
import { IntegrationError, type CreatedTicket, type EscalationIntegration, type FollowUp, type TicketDraft } from '../types.js';

export interface WebhookIntegrationOptions {
  /** Where tickets are POSTed. */
  url: string;
  /** HMAC-SHA256 signing secret. */
  secret: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10000 */
  timeoutMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** The JSON body the receiver gets. */
export interface WebhookTicket {
  id: string;
  conversation_id: string;
  organization_id: string;
  title: string;
  summary: string;
  transcript: { role: string; content: string; sources: { title: string; url: string }[] }[];
  /** `verified` is true when the site vouched for the email (a signed-in visitor's). */
  customer: { email: string; name: string; verified: boolean };
  /** What the visitor added in the escalation form; null when nothing. */
  note: string | null;
  label_type_ids: string[];
  priority: number | null;
  created_at: string;
}

/** The JSON body of a `ticket.message` event: a visitor's message sent after escalation. */
export interface WebhookTicketMessage {
  /** The same on every retry of this message, so a receiver can drop duplicates. */
  id: string;
  ticket_id: string;
  conversation_id: string;
  organization_id: string;
  message: { role: 'user'; content: string };
  created_at: string;
}

/** The ticket id for a conversation: the same on every retry, so a receiver can drop duplicates. */
export function webhookTicketId(orgId: string, conversationId: string): string {
  return `tkt_${createHash('sha256').update(`${orgId}\n${conversationId}`).digest('hex').slice(0, 24)}`;
}

/** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Checks a delivery's signature in constant time, and that its timestamp is within `toleranceSeconds`.
 *
 * @example
 * verifyWebhookSignature(secret, req.headers['x-support-chat-timestamp'], rawBody, req.headers['x-support-chat-signature'])
 */
export function verifyWebhookSignature(secret: string, timestamp: string | null, body: string, header: string | null, toleranceSeconds = 300, now = Date.now()): boolean {
  if (!timestamp || !header || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export function createWebhookIntegration(options: WebhookIntegrationOptions): EscalationIntegration {
  let target: URL;
  try {
    target = new URL(options.url);
  } catch {
    throw new IntegrationError('Webhook integration is misconfigured: SUPPORT_CHAT_WEBHOOK_URL is not a URL', { retryable: false });
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new IntegrationError('Webhook integration is misconfigured: SUPPORT_CHAT_WEBHOOK_URL must be http or https', { retryable: false });
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  /** POSTs one signed event; answers the receiver's response once it is a 2xx. */
  async function deliver(event: 'ticket.created' | 'ticket.message', id: string, body: string, signal: AbortSignal | undefined): Promise<Response> {
    const timestamp = String(Math.floor(now() / 1000));
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
    let response: Response;
    try {
      response = await doFetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'support-chat-webhook/1',
          'x-support-chat-event': event,
          'x-support-chat-timestamp': timestamp,
          'x-support-chat-signature': signWebhook(options.secret, timestamp, body),
          'idempotency-key': id,
        },
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: 'error',
      });
    } catch (error) {
      // A refused target (see targets.ts) stays refused: a retry cannot help.
      if (error instanceof IntegrationError) throw error;
      throw new IntegrationError(`Webhook delivery failed: ${error instanceof Error ? error.message : String(error)}`, { retryable: true, cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new IntegrationError(`Webhook receiver answered ${response.status}`, { retryable: true, status: response.status });
    }
    return response;
  }

  return {
    name: 'webhook',
    async createTicket(draft: TicketDraft, signal?: AbortSignal): Promise<CreatedTicket> {
      const id = webhookTicketId(draft.orgId, draft.conversationId);
      const ticket: WebhookTicket = {
        id,
        conversation_id: draft.conversationId,
        organization_id: draft.orgId,
        title: draft.title,
        summary: draft.summary,
        transcript: draft.transcript,
        customer: { email: draft.customer.email, name: draft.customer.name, verified: draft.customer.verified === true },
        note: draft.note ?? null,
        label_type_ids: draft.labelTypeIds,
        priority: draft.priority ?? null,
        created_at: new Date(now()).toISOString(),
      };
      const response = await deliver('ticket.created', id, JSON.stringify(ticket), signal);
      return { ticketId: id, ticketUrl: await ticketLink(response, target) };
    },
    async addFollowUp(followUp: FollowUp, signal?: AbortSignal): Promise<void> {
      const id = `msg_${createHash('sha256').update(`${followUp.orgId}\n${followUp.conversationId}\n${followUp.seq}`).digest('hex').slice(0, 24)}`;
      const event: WebhookTicketMessage = {
        id,
        ticket_id: followUp.ticketId,
        conversation_id: followUp.conversationId,
        organization_id: followUp.orgId,
        message: { role: 'user', content: followUp.content },
        created_at: followUp.sentAt,
      };
      const response = await deliver('ticket.message', id, JSON.stringify(event), signal);
      await response.body?.cancel().catch(() => undefined);
    },
  };
}

/** The most of a receiver's answer read for its `url`. */
const MAX_REPLY_BYTES = 16 * 1024;
/** The longest ticket link passed on to the visitor. */
const MAX_TICKET_URL_LENGTH = 2048;

/**
 * The ticket link a receiver answered with (`{"url": "https://…"}`), or '' (no link) when it
 * answered none. Never the webhook's own URL: Slack, Zapier and n8n hooks answer 2xx without a
 * link, and their URL is a capability (its path and query are the secret) that must not reach
 * the visitor.
 */
async function ticketLink(response: Response, target: URL): Promise<string> {
  let reply: unknown;
  try {
    reply = JSON.parse(await readCappedText(response.body, { limit: MAX_REPLY_BYTES }));
  } catch {
    // A receiver may answer with no JSON (or too much of it); the ticket still exists.
    await response.body?.cancel().catch(() => undefined);
    return '';
  }
  const url = (reply as { url?: unknown } | null)?.url;
  if (typeof url !== 'string' || url.length > MAX_TICKET_URL_LENGTH || !URL.canParse(url)) return '';
  const link = new URL(url);
  if (link.protocol !== 'https:' && link.protocol !== 'http:') return '';
  // A receiver that echoes the hook's address, however spelled (`/hook/`, `//hook`, `/%68ook`,
  // `localhost` for 127.0.0.1), would hand out the capability all the same: no link on its host.
  if (await sameHost(link, target)) return '';
  return link.href;
}

/** How long a ticket link's host may take to resolve; after that its name alone is compared. */
const LOOKUP_TIMEOUT_MS = 2_000;

/** Whether two URLs' hosts are one: the same name, or addresses in common once resolved (any loopback address is this machine). */
async function sameHost(a: URL, b: URL): Promise<boolean> {
  const [keysA, keysB] = await Promise.all([hostKeys(a), hostKeys(b)]);
  for (const key of keysA) if (keysB.has(key)) return true;
  return false;
}

/** A URL's host as comparable keys: its name (no trailing dot) and each address it stands for. */
async function hostKeys(url: URL): Promise<Set<string>> {
  const bracketed = url.hostname.startsWith('[') && url.hostname.endsWith(']');
  const name = bracketed ? url.hostname.slice(1, -1) : url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const keys = new Set([`name:${name}`]);
  // `localhost` is this machine whatever DNS says (as browsers treat it).
  if (name === 'localhost' || name.endsWith('.localhost')) return keys.add('loopback');
  let addresses: string[] = [];
  if (ipaddr.isValid(name)) addresses = [name];
  else {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string[]>((done) => (timer = setTimeout(() => done([]), LOOKUP_TIMEOUT_MS)));
    addresses = await Promise.race([resolveAll(name).catch(() => []), late]).finally(() => clearTimeout(timer));
  }
  for (const address of addresses) keys.add(addressKey(address));
  return keys;
}

/** An address as a key: an IPv4-mapped IPv6 address as its IPv4 address, any loopback or unspecified address as this machine. */
function addressKey(address: string): string {
  // `process` reads an IPv4-mapped IPv6 address as its IPv4 address.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'loopback' || range === 'unspecified' ? 'loopback' : `ip:${parsed.toNormalizedString()}`;
}
