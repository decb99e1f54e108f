// custom-elements.json is generated from the class JSDoc of <support-chat>.
export default {
  globs: ['src/widget/support-chat.component.ts', 'src/widget/support-chat.ts'],
  outdir: '.',
  litelement: true,
  plugins: [
    {
      name: 'documented-events-only',
      // The private emit helper dispatches events by a variable name; only the documented @event names are real.
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            if (declaration.events) declaration.events = declaration.events.filter((event) => event.name.startsWith('support-chat-'));
            // Internal reactive state (`state: true`, private fields) has no attribute.
            const internal = new Set((declaration.members ?? []).filter((m) => m.privacy === 'private' || m.privacy === 'protected').map((m) => m.name));
            if (declaration.attributes) declaration.attributes = declaration.attributes.filter((a) => !internal.has(a.fieldName ?? a.name));
          }
        }
      },
    },
  ],
};
