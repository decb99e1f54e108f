// The same root component as with the site's own search (see ../theme/Root.js).
export { default } from '../theme/Root.js';
