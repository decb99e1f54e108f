/** @module `support-chat`: the `<support-chat>` element and its client-side pieces. */
export { SupportChat } from './support-chat.js';
export { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError, ProxyClient } from './client.js';
export type { SupportChatEventMap, SupportChatErrorDetail } from './events.js';
export type { Strings } from './strings.js';
export type { IdentityToken } from './identity-token.js';
export type { ConversationList, SearchResult, VisitorInfo } from './client.js';
export { LOCALES } from './strings.js';
