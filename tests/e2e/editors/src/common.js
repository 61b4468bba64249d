// What every editor page shares: `window.editorPage` for the test (the editor's own model as plain text,
// `ready` once the editor is up) and the page's own submit handler that posts what the editor holds.
export function mountPage({ text, ready = Promise.resolve() }) {
  const form = document.querySelector("#compose");
  // The page's own listener (bubble phase on the form), like a site that copies the editor's content into
  // a hidden field when the form is sent.
  form.addEventListener("submit", () => {
    form.elements.message.value = text();
  });
  window.editorPage = { text, ready: ready.then(() => true) };
}

/** Plain text of a DOM-free model given as a list of blocks (each block's text), one line per block. */
export const lines = (blocks) => blocks.join("\n");
