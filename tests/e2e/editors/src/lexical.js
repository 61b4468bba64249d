// Lexical (vanilla, rich text + history): every edit goes through Lexical's model from beforeinput.
import { registerHistory, createEmptyHistoryState } from "@lexical/history";
import { HeadingNode, QuoteNode, registerRichText } from "@lexical/rich-text";
import { $getRoot, createEditor } from "lexical";
import { mountPage } from "./common.js";

const editor = createEditor({
  namespace: "fantasma-e2e",
  nodes: [HeadingNode, QuoteNode],
  onError: (error) => {
    throw error;
  },
});
editor.setRootElement(document.querySelector("#field"));
registerRichText(editor);
registerHistory(editor, createEmptyHistoryState(), 300);
window.lexicalEditor = editor;

mountPage({
  text: () =>
    editor.getEditorState().read(() =>
      $getRoot()
        .getChildren()
        .map((block) => block.getTextContent())
        .join("\n"),
    ),
});
