/** The strict policy the demo pages are served with (and the widget must work under). */
export const DEMO_CSP: string;
