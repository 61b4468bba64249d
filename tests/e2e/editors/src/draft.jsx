// Draft.js 0.11 on React 18 (createRoot): a controlled EditorState.
import { Editor, EditorState } from "draft-js";
import "draft-js/dist/Draft.css";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { mountPage } from "./common.js";

function App() {
  const [state, setState] = useState(() => EditorState.createEmpty());
  window.draftState = state;
  return (
    <div style={{ minHeight: "120px", border: "1px solid #999" }}>
      <Editor editorState={state} onChange={setState} placeholder="Write a message" />
    </div>
  );
}

createRoot(document.querySelector("#editor")).render(<App />);
mountPage({ text: () => window.draftState.getCurrentContent().getPlainText("\n") });
