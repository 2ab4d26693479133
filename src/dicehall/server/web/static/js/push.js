// The page's push socket, for pages without one of their own (a board opens its own, which
// follows its game too, and so does a tournament page): every message is passed on as a
// "dicehall:push" event on document, so the header's bell and the page's scripts share one
// socket. socket.js reconnects it with a growing delay; body[data-live] says whether it is up.

import { connect } from "/static/js/socket.js";

connect();
