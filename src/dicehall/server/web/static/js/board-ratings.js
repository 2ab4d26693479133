// The ratings of a rated game, next to its board and drawn from the same game JSON
// (game.ratings; an unrated game has none and shows nothing). Before and during the game:
// each seat's rating ("1540?" while provisional) and the ratings' chance that it finishes
// first, with the favourite's chance in words: with dice, even a favourite often loses.
// Once the game is rated: each seat's new rating and its change (+12 / -12), announced.
// The figures all come from the server; this module only writes them out.

import { h, seatName } from "/static/js/board-core.js";

/** A chance as people say it: "58%". */
export function percent(chance) {
  return `${Math.round(Number(chance) * 100)}%`;
}

/** A change with its sign: "+12", "-12", "0". */
export function signed(change) {
  return change > 0 ? `+${change}` : String(change);
}

/** A rating as the site shows it: "1540", "1540?" while provisional. */
export function figure(seat) {
  if (seat.rating === null || seat.rating === undefined) return null;
  return `${seat.rating}${seat.provisional ? "?" : ""}`;
}

/** The favourite's chance in words, or null when the chances are not known. */
export function favouriteLine(game) {
  const seats = game.ratings.seats;
  if (seats.length < 2 || seats.some((s) => s.chance === null)) return null;
  const best = seats.reduce((a, b) => (b.chance > a.chance ? b : a));
  if (seats.every((s) => percent(s.chance) === percent(best.chance))) {
    return `The ratings give every player the same chance to finish first: ${percent(best.chance)}.`;
  }
  return `With dice, even the favourite (${seatName(game, best.seat)}) finishes first only ${percent(best.chance)} of the time.`;
}

/** Show the ratings of the game on the board `root` each time it shows a game. */
export function ratings(root) {
  const box = document.getElementById("board-ratings");
  const list = document.getElementById("ratings-seats");
  const note = document.getElementById("ratings-note");
  const news = document.getElementById("ratings-news");
  if (!box || !list || !note || !news) return;
  let shown = "";

  root.addEventListener("dicehall:game", (event) => draw(event.detail.game));

  function draw(game) {
    const r = game.ratings;
    const key = r ? JSON.stringify([r, game.seats.map((s) => s.name), game.my_seat]) : "";
    if (key === shown) return;
    shown = key;
    if (!r) {
      box.hidden = true;
      list.replaceChildren();
      note.textContent = "";
      return;
    }
    box.hidden = false;
    const rated = r.seats.some((s) => s.change !== null);
    list.replaceChildren(...r.seats.map((s) => seatRow(game, s, rated, r.hidden)));
    if (rated) {
      note.textContent = "Ratings after this game; the chances are those the ratings gave before it.";
      const changes = r.seats
        .filter((s) => s.change !== null)
        .map((s) => `${seatName(game, s.seat)} ${figure(s)} (${signed(s.change)})`);
      news.textContent = `Ratings after this game: ${changes.join(", ")}.`;
    } else if (r.hidden) {
      note.textContent = "Your rating and the chances are hidden until the game is over (your settings: Edit ratings).";
    } else {
      note.textContent = favouriteLine(game) ?? "The chances show once every seat is taken.";
    }
  }

  function seatRow(game, s, rated, hidden) {
    const mine = game.my_seat === s.seat;
    const value = figure(s) ?? (hidden && mine ? "hidden" : "no rating");
    return h(
      "li",
      { class: "rating-seat", "data-seat": s.seat, "data-testid": `rating-seat-${s.seat}` },
      h("span", { class: "rating-name" }, seatName(game, s.seat)),
      " ",
      h("span", { class: "rating-value", "data-testid": `rating-${s.seat}` }, value),
      s.change !== null
        ? [" ", h("span", {
          class: `rating-change ${s.change > 0 ? "up" : s.change < 0 ? "down" : "same"}`,
          "data-testid": `rating-change-${s.seat}`,
        }, signed(s.change))]
        : null,
      s.chance !== null
        ? [" ", h("span", { class: "rating-chance", "data-testid": `rating-chance-${s.seat}` },
          rated ? `(had ${percent(s.chance)} to finish first)` : `${percent(s.chance)} to finish first`)]
        : null,
    );
  }
}
