// A message's text into an element, safely: text nodes for the words, and links made with
// createElement only for http(s) addresses (as the server's web/linkify.py does). Nothing
// the writer typed is ever parsed as HTML.

const ADDRESS = /https?:\/\/[^\s<>"'`]+/gi;
const TRAILING = ".,;:!?'\"";
const CLOSING = { ")": "(", "]": "[", "}": "{" };

function count(text, char) {
  return text.split(char).length - 1;
}

// The address without the punctuation after it; a closing bracket stays when the address
// opened one.
function trimmed(address) {
  while (address) {
    const last = address[address.length - 1];
    if (TRAILING.includes(last)) {
      address = address.slice(0, -1);
    } else if (last in CLOSING && count(address, CLOSING[last]) < count(address, last)) {
      address = address.slice(0, -1);
    } else {
      break;
    }
  }
  return address;
}

function isLink(address) {
  try {
    const url = new URL(address);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host !== "";
  } catch {
    return false;
  }
}

export function renderBody(element, text) {
  element.replaceChildren();
  let done = 0;
  for (const found of text.matchAll(ADDRESS)) {
    const address = trimmed(found[0]);
    if (!isLink(address)) continue;
    element.append(document.createTextNode(text.slice(done, found.index)));
    const link = document.createElement("a");
    link.href = address;
    link.rel = "nofollow noopener noreferrer";
    link.textContent = address;
    element.append(link);
    done = found.index + address.length;
  }
  element.append(document.createTextNode(text.slice(done)));
}
