// Slate + slate-react + slate-history on React 18 (createRoot).
import { useMemo } from "react";
import { createRoot } from "react-dom/client";
import { createEditor, Node } from "slate";
import { withHistory } from "slate-history";
import { Editable, Slate, withReact } from "slate-react";
import { mountPage } from "./common.js";

function App() {
  const editor = useMemo(() => withHistory(withReact(createEditor())), []);
  window.slateEditor = editor;
  return (
    <Slate editor={editor} initialValue={[{ type: "paragraph", children: [{ text: "" }] }]}>
      <Editable id="field" placeholder="Write a message" style={{ minHeight: "120px", border: "1px solid #999" }} />
    </Slate>
  );
}

createRoot(document.querySelector("#editor")).render(<App />);
mountPage({ text: () => window.slateEditor.children.map((block) => Node.string(block)).join("\n") });
