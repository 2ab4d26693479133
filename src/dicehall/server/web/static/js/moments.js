// Moments in the viewer's time zone, as the server words them (web/moments.py): "Mon 7 Dec
// 2026, 23:05 CET". The zone is the signed-in user's time_zone setting, which <html> carries
// as data-time-zone (settings-live.js keeps it current); UTC for visitors.

/** The viewer's IANA time zone. */
export function viewerZone() {
  return document.documentElement.dataset.timeZone || "UTC";
}

function parts(date, options) {
  try {
    const found = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: viewerZone() })
      .formatToParts(date);
    return Object.fromEntries(found.map((part) => [part.type, part.value]));
  } catch {
    const found = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" }).formatToParts(date);
    return Object.fromEntries(found.map((part) => [part.type, part.value]));
  }
}

/** `date` in full in the viewer's zone: "Mon 7 Dec 2026, 23:05 CET". */
export function exact(date) {
  const p = parts(date, {
    weekday: "short", day: "numeric", month: "short", year: "numeric",
    hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short",
  });
  return `${p.weekday} ${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} ${p.timeZoneName}`;
}

/** The time of day of `date` in the viewer's zone: "23:05". */
export function clock(date) {
  const p = parts(date, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return `${p.hour}:${p.minute}`;
}
