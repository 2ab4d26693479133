// The board's "Next game" link: when it is not my turn here and another game waits on my
// move, "Next game (N waiting)" opens the one with the least time left (GET
// /api/v1/games/next?skip=ID; games without a clock come after those with one). The "n" key
// (board-core.js) goes the same way, through /next. Asked again when this game changes and
// when a push says another of my games did.

/** Show the next game waiting on me next to the board `root`, for a signed-in viewer. */
export function nextGame(root) {
  const box = document.getElementById("board-next");
  const link = document.getElementById("next-game");
  if (!box || !link || !document.querySelector('meta[name="csrf-token"]')) return;
  const id = String(root.dataset.gameId);
  let mineHere = true; // my turn here: no button (until the board says otherwise)
  let asking = false;
  let again = false;

  function show(found) {
    const wanted = !mineHere && found && Number.isInteger(found.game);
    box.hidden = !wanted;
    root.dataset.nextGame = wanted ? String(found.game) : "";
    if (!wanted) return;
    link.href = `/games/${found.game}`;
    link.textContent = `Next game (${found.waiting} waiting)`;
  }

  async function look() {
    if (asking) {
      again = true; // something changed while asking: ask once more after
      return;
    }
    asking = true;
    try {
      const response = await fetch(`/api/v1/games/next?skip=${encodeURIComponent(id)}`, {
        credentials: "same-origin",
      });
      if (response.ok) show(await response.json());
    } catch {
      // offline for a moment: the button stays as it was
    } finally {
      asking = false;
      if (again) {
        again = false;
        look();
      }
    }
  }

  root.addEventListener("dicehall:game", (event) => {
    const game = event.detail.game;
    const was = mineHere;
    mineHere = Boolean(game.your_turn);
    if (mineHere) show(null);
    else if (was || box.hidden) look();
  });
  document.addEventListener("dicehall:push", (event) => {
    const message = event.detail;
    if (message && message.type === "game" && String(message.game) !== id && !mineHere) look();
  });
}
