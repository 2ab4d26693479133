// The settings page: choosing colours, dice or board size previews the choice on this page
// at once (the form still has to be saved to keep it); a change saved on another page of
// mine (pushed: "dicehall:settings") moves this form's controls too, unless I am changing
// it here.
import { apply } from "/static/js/settings-live.js";

const form = document.getElementById("settings-form");
const note = document.getElementById("preview-note");
const PREVIEWED = ["theme", "dice_style", "board_size"];
let dirty = false;

/** The form's current choice for each previewed setting. */
function chosen() {
  const out = {};
  for (const name of PREVIEWED) {
    const checked = form.querySelector(`input[name="${name}"]:checked`);
    if (checked) out[name] = checked.value;
  }
  return out;
}

if (form) {
  form.addEventListener("change", (event) => {
    dirty = true;
    if (!PREVIEWED.includes(event.target.name)) return;
    apply(chosen());
    note.textContent = "This page shows your choice; save the settings to keep it and use it everywhere.";
  });
  // A page brought back from the history keeps the unsaved choices in its form: show them.
  window.addEventListener("pageshow", () => apply(chosen()));

  document.addEventListener("dicehall:settings", (event) => {
    const settings = event.detail;
    if (dirty) {
      apply(chosen()); // keep previewing what I am choosing here
      return;
    }
    for (const [name, value] of Object.entries(settings)) {
      if (name === "ratings_shown") {
        // One checkbox per rating kind: rating_<kind>.
        for (const input of form.querySelectorAll('input[name^="rating_"]')) {
          input.checked = value.includes(input.name.slice("rating_".length));
        }
        continue;
      }
      for (const input of form.querySelectorAll(`input[name="${name}"]`)) {
        input.checked = input.type === "checkbox" ? value === true : input.value === value;
      }
    }
    note.textContent = "Your settings were changed on another page; this form shows them.";
  });
}
