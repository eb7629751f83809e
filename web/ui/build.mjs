// Builds the web UI from src/ into ../dist (the files web embeds), or
// into --out DIR, which web's freshness test compares with ../dist; with
// --tests DIR, compiles test/*.test.ts there for `node --test`.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const tests = flag("--tests");
if (tests) {
  mkdirSync(tests, { recursive: true });
  const entries = readdirSync(join(here, "test")).filter((f) => f.endsWith(".test.ts"));
  await build({
    entryPoints: entries.map((f) => join(here, "test", f)),
    outdir: tests,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
} else {
  const out = flag("--out") ?? join(here, "..", "dist");
  mkdirSync(out, { recursive: true });
  // One script and one style sheet, minified: the CSP allows only the
  // page's own files, and the bundle's size is a budget (BENCHMARKS.md).
  await build({
    entryPoints: [
      { in: join(here, "src", "main.ts"), out: "app" },
      { in: join(here, "src", "app.css"), out: "app" },
    ],
    outdir: out,
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    legalComments: "none",
    charset: "utf8",
    logLevel: "warning",
  });
  copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
}
