// Sign-up forms: fill the hidden time_zone field with this browser's time zone, so the new
// account shows times in it from the start (the site ignores a zone it does not know).
let zone = "";
try {
  zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
} catch {
  zone = ""; // an old browser: the account starts on UTC
}
for (const input of document.querySelectorAll('input[type="hidden"][name="time_zone"]')) {
  if (!input.value) input.value = zone;
}
