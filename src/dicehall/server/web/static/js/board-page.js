// The board page's entry point: kept out of the page, so the site's Content-Security-Policy
// can forbid inline scripts.
import { chat } from "/static/js/board-chat.js";
import { attach } from "/static/js/board-clock.js";
import { start } from "/static/js/board-core.js";
import { nextGame } from "/static/js/board-next.js";
import { ratings } from "/static/js/board-ratings.js";
import { seed } from "/static/js/board-seed.js";
import { watch } from "/static/js/board-watch.js";

watch(document.getElementById("board"));
attach(document.getElementById("board"));
chat(document.getElementById("board"));
ratings(document.getElementById("board"));
nextGame(document.getElementById("board"));
seed(document.getElementById("board"));
start(document.getElementById("board"));
