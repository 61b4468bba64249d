// Bundles each editor page's script (src/NAME.js[x]) into bundles/NAME.js (+ NAME.css) with esbuild:
// self-contained, nothing is fetched at run time. Run by `make test-install` and by the e2e fixture.
import { build } from "esbuild";
import { readdirSync } from "node:fs";

const entryPoints = readdirSync(new URL("./src", import.meta.url))
  .filter((name) => /\.jsx?$/.test(name) && name !== "common.js")
  .map((name) => `src/${name}`);

await build({
  entryPoints,
  absWorkingDir: new URL(".", import.meta.url).pathname,
  outdir: "bundles",
  bundle: true,
  format: "iife",
  minify: true,
  jsx: "automatic",
  target: ["chrome120", "firefox128"],
  define: { "process.env.NODE_ENV": '"production"', global: "window" },
  loader: { ".svg": "dataurl", ".woff": "dataurl", ".woff2": "dataurl", ".ttf": "dataurl", ".png": "dataurl" },
  logLevel: "warning",
});
console.log(`bundled ${entryPoints.length} editor pages into bundles/`);
