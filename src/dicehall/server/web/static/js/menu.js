// The header's menus (Play, Talk, Spy, Account, Info; a visitor's Visitors and Info) are
// <details> elements, so they open and close from the keyboard and without scripts. This
// adds what a menu bar is expected to do: one menu open at a time, Escape closes it (focus
// back on its name), and a click or focus outside closes it.

const menus = Array.from(document.querySelectorAll("details.menu"));

function closeAll(except) {
  for (const menu of menus) {
    if (menu !== except) menu.open = false;
  }
}

for (const menu of menus) {
  menu.addEventListener("toggle", () => {
    if (menu.open) closeAll(menu);
  });
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary")?.focus();
    }
  });
}

document.addEventListener("click", (event) => {
  if (!menus.some((menu) => menu.contains(event.target))) closeAll(null);
});
document.addEventListener("focusin", (event) => {
  if (!menus.some((menu) => menu.contains(event.target))) closeAll(null);
});
