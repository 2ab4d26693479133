// The site's push socket (GET /api/v1/ws), reconnecting: the one place a page opens one.
// push.js opens it for pages without a socket of their own, a board (board-core.js) with
// ?watch=ID, a tournament page (tournament.js) with ?tournament=ID.
//
// Every message (JSON; anything else is dropped) is passed on as a "dicehall:push" event on
// document, so the header's bell and the page's scripts share the one socket, and then to
// onMessage. body[data-live] says whether the socket is up ("on") or not ("off").
//
// When the socket closes it is opened again after a pause: `first` ms after a socket that
// was open, doubling after each try that fails, `max` at most; `jitter` (0 to 1) moves each
// pause by up to that share either way. A close code in `stopOn` (4404: what it followed is
// gone) ends it for good, as does a browser that will not make a socket at all.
//
//   const socket = connect({ query: { watch: id }, onMessage(message) { ... } });
//   socket.close();  // and it stays closed
//
// onOpen({ again }) runs as each socket opens, before body[data-live] turns "on"; `again` is
// false for the page's first try only: after a break the page may look for what it missed.
// (The server says {"type": "hello"} on each new socket too.)

export function connect({
  query = {},
  onMessage = () => {},
  onOpen = () => {},
  first = 500,
  max = 10000,
  jitter = 0,
  stopOn = [],
} = {}) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const search = Object.entries(query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join("&");
  const url = `${scheme}://${location.host}/api/v1/ws${search ? `?${search}` : ""}`;
  let pause = first;
  let tries = 0;
  let socket = null;
  let timer = null;
  let closed = false;

  function open() {
    timer = null;
    const again = tries > 0;
    tries += 1;
    try {
      socket = new WebSocket(url);
    } catch {
      socket = null;
      return;
    }
    socket.addEventListener("open", () => {
      pause = first;
      onOpen({ again });
      document.body.dataset.live = "on";
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      document.dispatchEvent(new CustomEvent("dicehall:push", { detail: message }));
      onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      document.body.dataset.live = "off";
      if (closed || stopOn.includes(event.code)) return;
      const wait = jitter ? pause * (1 + jitter * (2 * Math.random() - 1)) : pause;
      timer = setTimeout(open, wait);
      pause = Math.min(pause * 2, max);
    });
  }

  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      timer = null;
      socket?.close();
    },
  };
}
