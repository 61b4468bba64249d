// CKEditor 5, classic build from the `ckeditor5` package (GPL licence key: no cloud, no network).
// The editor replaces <textarea name=body> and copies getData() back into it when the form is submitted.
import { Bold, ClassicEditor, Essentials, Italic, Paragraph } from "ckeditor5";
import "ckeditor5/ckeditor5.css";
import { lines, mountPage } from "./common.js";

const created = ClassicEditor.create(document.querySelector("#body"), {
  licenseKey: "GPL",
  plugins: [Essentials, Paragraph, Bold, Italic],
  toolbar: ["undo", "redo", "|", "bold", "italic"],
}).then((editor) => {
  window.ckeditor = editor;
  return editor;
});

function blockText(block) {
  let out = "";
  for (const node of block.getChildren()) {
    if (node.is("$text")) out += node.data;
    else if (node.is("element", "softBreak")) out += "\n";
  }
  return out;
}

mountPage({
  text: () => lines([...window.ckeditor.model.document.getRoot().getChildren()].map(blockText)),
  ready: created,
});
