// A React 18 controlled <textarea>: the state changes only through onChange, and every render writes the
// state back into the DOM, so an edit React did not see is reverted.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { mountPage } from "./common.js";

function App() {
  const [value, setValue] = useState("");
  window.reactValue = value;
  return <textarea id="field" rows={5} cols={60} value={value} onChange={(e) => setValue(e.target.value)} />;
}

createRoot(document.querySelector("#editor")).render(<App />);
mountPage({ text: () => window.reactValue });
