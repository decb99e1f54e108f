/** @module What the docs-site plugins share: their options, the widget's files, the dev server's proxy, and the llms.txt writer. */
export { ASSET_FOLDER, DEFAULT_ENDPOINT, normalizeBase, scriptAttributes, type SupportChatPluginOptions } from './options.js';
export { assetMiddleware, copyWidgetAssets, widgetAssets, widgetDir, type WidgetAsset } from './assets.js';
export { devProxyMiddleware, findEnvFile, readSettings, type ProxySettings } from './dev-proxy.js';
export { llmsFiles, pageUrl, readPageFile, readPageSource, writeLlmsFiles, type LlmsPage, type LlmsSite } from './llms.js';
export { NAVIGATE_SCRIPT } from './navigate.js';
