/** @module The open-wc testing helpers and the axe accessibility assertion, on Vitest's chai. */
import { chai } from 'vitest';
import { chaiA11yAxe } from 'chai-a11y-axe';

chai.use(chaiA11yAxe);

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Chai {
    interface Assertion {
      accessible(options?: { ignoredRules?: string[]; ignoredTags?: string[]; done?: () => void }): Promise<Assertion>;
    }
  }
}
