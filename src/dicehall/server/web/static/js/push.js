// The page's push socket, for pages without one of their own (a board opens its own, which
// follows its game too, and passes its messages on the same way): every message is passed
// on as a "dicehall:push" event on document, so the header's bell and the page's scripts
// share one socket. Reconnects with a growing delay; body[data-live] says whether it is up.

function connect(delay = 500) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/api/v1/ws`);
  } catch {
    return;
  }
  socket.addEventListener("open", () => {
    delay = 500;
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
  });
  socket.addEventListener("close", () => {
    document.body.dataset.live = "off";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  });
}

connect();
