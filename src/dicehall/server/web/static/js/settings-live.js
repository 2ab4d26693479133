// My settings, live on every page: <html>'s data attributes carry them (the server writes
// them; the site's CSS and the boards read them), and a pushed {"type": "settings"} message
// (a change made on another page of mine) rewrites them at once, then says so with a
// "dicehall:settings" event on document (boards redraw, the settings page follows).
//
// Also the "your turn" sound: a short beep made with WebAudio (no sound files) when a board
// of mine becomes my turn or a notification says it is, only with the `sounds` setting on,
// and only once the page has had a click or a key (browsers allow sound only after one).

const root = document.documentElement;

/** Each setting and the <html> data attribute (dataset name) that carries it. */
const ATTRIBUTES = {
  theme: "theme",
  dice_style: "dice",
  board_size: "boardSize",
  hints_open: "hintsOpen",
  sounds: "sounds",
  confirm_moves: "confirm",
  time_zone: "timeZone",
};

/** Put `settings` (the API's JSON, all or some of them) on <html>. */
export function apply(settings) {
  for (const [name, key] of Object.entries(ATTRIBUTES)) {
    const value = settings[name];
    if (typeof value === "boolean") root.dataset[key] = value ? "true" : "false";
    else if (typeof value === "string") root.dataset[key] = value;
  }
}

document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (!message || message.type !== "settings" || typeof message.settings !== "object") return;
  apply(message.settings);
  document.dispatchEvent(new CustomEvent("dicehall:settings", { detail: message.settings }));
});

// -- the "your turn" sound ---------------------------------------------------------------------

let audio = null;
let lastBeep = -Infinity;

function unlock() {
  if (root.dataset.sounds !== "true") return;
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume();
  } catch {
    audio = null; // no WebAudio here: stay silent
  }
}
document.addEventListener("pointerdown", unlock, { capture: true });
document.addEventListener("keydown", unlock, { capture: true });

/** A short two-tone beep (a board and a notification may both say "your turn": one beep). */
export function beep() {
  if (root.dataset.sounds !== "true") return;
  // Why a beep was not heard, for tests and curious readers: no click or key yet.
  if (!audio) {
    document.body.dataset.sound = "locked";
    return;
  }
  if (performance.now() - lastBeep < 2000) return;
  lastBeep = performance.now();
  // A context the browser suspended (a tab in the background, say) may resume: the page has
  // had its click.
  if (audio.state === "running") play(audio);
  else audio.resume().then(() => play(audio), () => { document.body.dataset.sound = audio.state; });
}

function play(context) {
  const at = context.currentTime;
  const gain = context.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.35);
  gain.connect(context.destination);
  const tone = context.createOscillator();
  tone.type = "sine";
  tone.frequency.setValueAtTime(660, at);
  tone.frequency.setValueAtTime(880, at + 0.12);
  tone.connect(gain);
  tone.start(at);
  tone.stop(at + 0.36);
  // For tests and curious readers: how many beeps this page made.
  document.body.dataset.beeps = String(Number(document.body.dataset.beeps ?? 0) + 1);
}

// A board (board-core.js) marks whose turn it is on #board[data-your-turn].
const board = document.getElementById("board");
if (board) {
  let before = board.dataset.yourTurn;
  new MutationObserver(() => {
    const now = board.dataset.yourTurn;
    if (now === "true" && before === "false") beep();
    before = now;
  }).observe(board, { attributes: true, attributeFilter: ["data-your-turn"] });
}
document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (message?.type === "notification" && message.kind === "your_turn") beep();
});
