// TinyMCE 8 (iframe mode), self-hosted from the npm package: the theme, model, icons and skins are bundled,
// so nothing is fetched; license_key "gpl". TinyMCE copies its content into <textarea name=body> on submit.
import tinymce from "tinymce";
import "tinymce/icons/default";
import "tinymce/models/dom";
import "tinymce/themes/silver";
import "tinymce/skins/ui/oxide/skin.js";
import "tinymce/skins/ui/oxide/content.js";
import "tinymce/skins/content/default/content.js";
import { mountPage } from "./common.js";

const ready = tinymce.init({
  selector: "#body",
  license_key: "gpl",
  skin_url: "default",
  content_css: "default",
  menubar: false,
  promotion: false,
  branding: false,
  toolbar: "undo redo | bold italic",
  height: 260,
});

// TinyMCE's model is its iframe's DOM (getContent serializes it); one line per block. getContent's text
// format is not used: it renders an empty paragraph as extra blank lines.
function blockText(block) {
  const text = block.textContent;
  return text === "\u00a0" ? "" : text.replace(/\u00a0/g, " ");
}

mountPage({
  text: () => [...tinymce.activeEditor.getBody().children].map(blockText).join("\n"),
  ready,
});
