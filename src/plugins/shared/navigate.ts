/**
 * @module Opening the widget's results through the site's router. The widget announces each link it
 * is about to open (`support-chat-navigate`, cancelable); for a link on this site, this script
 * cancels it and clicks an ordinary link to the same address instead. Routers that take over the
 * site's link clicks (VitePress's, Astro's view transitions) then open it as any link of the page,
 * without reloading; with no router it is a plain navigation. The widget's own links are in its
 * shadow root, where those routers do not see them.
 */

/** The script, inline in each page's head. */
export const NAVIGATE_SCRIPT = `addEventListener('support-chat-navigate',function(e){var d=e.detail;if(!d||typeof d.url!=='string')return;var u=new URL(d.url,location.href);if(u.origin!==location.origin)return;e.preventDefault();var a=document.createElement('a');a.href=u.href;a.hidden=true;document.body.append(a);a.click();a.remove()})`;
