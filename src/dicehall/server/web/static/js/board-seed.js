// A seat's seed: the browser's own random bytes, sent once per game for the seat it plays
// (the site mixes them into every later roll and hand: see /help/fair-dice). The seed is
// kept in this browser, under "dicehall-seed:<game id>", to compare with the game's proof.
import { api } from "/static/js/board-core.js";

function randomSeed() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function seed(root) {
  if (!root || !window.crypto?.getRandomValues) return;
  let sending = false;
  root.addEventListener("dicehall:game", async (event) => {
    const game = event.detail.game;
    if (sending || game.my_seat === null || game.my_seat === undefined) return;
    if (game.status !== "waiting" && game.status !== "active") return;
    const key = `dicehall-seed:${game.id}`;
    let stored = null;
    try {
      stored = localStorage.getItem(key);
    } catch {
      return; // no storage: the seed could not be kept to check, so none is sent
    }
    if (stored) return;
    sending = true;
    const mine = randomSeed();
    const got = await api("POST", `/api/v1/games/${game.id}/seed`, { seed: mine });
    sending = false;
    // 409: this seat has its seed already (sent with the game's creation), or the game is
    // from before decks; either way there is nothing more to send.
    if (got.ok) localStorage.setItem(key, mine);
    else if (got.status === 409) localStorage.setItem(key, got.data.code ?? "sent");
  });
}
