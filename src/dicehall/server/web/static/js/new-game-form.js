// The new-game form: vacation cannot save a player at a pace under a day (the server marks
// those paces' options data-no-vacation and applies the same rule whatever the form sends),
// so its box is unticked and disabled while such a pace is chosen, and given back after.

const pace = document.getElementById("f-pace");
const box = document.getElementById("f-vacation");

if (pace && box) {
  let wanted = box.checked || box.disabled; // the default (ticked) when the page came disabled
  const follow = () => {
    const short = pace.selectedOptions[0]?.hasAttribute("data-no-vacation") ?? false;
    if (short && !box.disabled) wanted = box.checked;
    box.disabled = short;
    box.checked = short ? false : wanted;
  };
  pace.addEventListener("change", follow);
  follow();
}

