// TipTap 3 (ProseMirror underneath) with StarterKit: paragraphs, marks, links, undo/redo.
import { Editor } from "@tiptap/core";
import StarterKit from "@tiptap/starter-kit";
import { mountPage } from "./common.js";

const editor = new Editor({
  element: document.querySelector("#editor"),
  extensions: [StarterKit],
  editorProps: { attributes: { id: "field" } },
});
window.tiptap = editor;
mountPage({ text: () => editor.getText({ blockSeparator: "\n" }) });
