// Quill 2 (snow theme, history module on by default).
import Quill from "quill";
import "quill/dist/quill.snow.css";
import { mountPage } from "./common.js";

const quill = new Quill("#editor", { theme: "snow", placeholder: "Write a message" });
window.quill = quill;
mountPage({ text: () => quill.getText().replace(/\n$/, "") });
