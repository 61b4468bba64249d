// CodeMirror 6: the document lives in EditorState; edits reach it from DOM mutations and key bindings.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { mountPage } from "./common.js";

const view = new EditorView({
  state: EditorState.create({
    doc: "",
    extensions: [history(), keymap.of([...defaultKeymap, ...historyKeymap]), EditorView.lineWrapping],
  }),
  parent: document.querySelector("#editor"),
});
window.cmView = view;
mountPage({ text: () => view.state.doc.toString() });
