// The spectators' part of a board: how many watch the game ("2 watching"), for its players
// too, and for someone who does not play it a line saying the board is theirs to watch only.
//
// The counts come over the board's push socket, which follows the game (/api/v1/ws?watch=ID)
// and hands every message to the page as a "dicehall:push" event: {"type": "watching",
// "game": ID, "watching": n, "seq": s}. A count with a smaller seq than one already shown is
// older news (counts from several server processes can cross) and is dropped.

/** What a spectator is told about the game they watch, by its status. */
export function spectatorNote(status) {
  if (status === "finished") return "You are watching this game: it is over. ";
  if (status === "aborted" || status === "cancelled") return "You are watching this game: it ended without a result. ";
  if (status === "waiting") return "You are watching this game: it starts when its seats are taken. ";
  return "You are watching this game: it moves on as its players play. ";
}

/** Show the game's spectators next to the board `root` (its data-game-id, data-spectator). */
export function watch(root) {
  const id = String(root.dataset.gameId);
  const count = document.createElement("span");
  count.className = "watching-count";
  count.dataset.testid = "watching";
  const line = document.createElement("p");
  line.id = "board-watching";
  line.className = "watching";
  line.hidden = root.dataset.spectator !== "true";
  if (root.dataset.spectator === "true") {
    const note = document.createElement("span");
    note.dataset.testid = "spectator";
    note.textContent = spectatorNote(root.dataset.status);
    line.append(note);
    // The board frame (board-core.js) says each version of the game it draws.
    root.addEventListener("dicehall:game", (event) => {
      note.textContent = spectatorNote(event.detail?.game?.status);
    });
  }
  line.append(count);
  // Under the page's title, where a phone shows it without scrolling past the board.
  const title = document.getElementById("board-title");
  if (title) title.after(line);
  else root.before(line);

  let seen = -1;
  document.addEventListener("dicehall:push", (event) => {
    const message = event.detail;
    if (!message || message.type !== "watching" || String(message.game) !== id) return;
    if (typeof message.seq === "number" && message.seq < seen) return;
    seen = message.seq;
    const n = Number(message.watching) || 0;
    count.textContent = `${n} watching`;
    root.dataset.watching = String(n);
    // A player's board says nothing while nobody watches; a spectator always counts.
    line.hidden = n === 0 && root.dataset.spectator !== "true";
  });
}
