// What the page takes from intl-messageformat: only the formatter (service/static/js/i18n.js).
export { IntlMessageFormat } from "intl-messageformat";
