// The board page's entry point: kept out of the page, so the site's Content-Security-Policy
// can forbid inline scripts.
import { start } from "/static/js/board-core.js";

start(document.getElementById("board"));
