// What BENCHMARKS.md reports of the web UI, measured in the CI browser
// against BASE_URL (cmd/agentscope's BenchmarkWebUIInBrowser starts it,
// with the scripted agent): the embedded bundle's gzipped size, the first
// paint of a session of 200 messages, and the frames while a reply of
// 1,000 text deltas streams. It prints the numbers; it asserts none.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { api, launch } from "./lib.mjs";

const base = process.env.BASE_URL;
const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist");
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let gz = 0;
let raw = 0;
for (const f of ["index.html", "app.js", "app.css"]) {
  const b = readFileSync(join(dist, f));
  raw += b.length;
  gz += gzipSync(b, { level: 9 }).length;
}
console.log(`bundle: ${raw} bytes, ${(gz / 1024).toFixed(1)} KiB gzipped`);

async function idle(sid) {
  for (;;) {
    const { status } = await api(base, "GET", `/sessions/${sid}/status?agent_id=scripted`);
    if (status === "idle") return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

// A session of 200 messages: 100 exchanges with the scripted model.
const { session_id: big } = await api(base, "POST", "/sessions/", { agent_id: "scripted" });
for (let i = 0; i < 100; i++) {
  await api(base, "POST", "/chat/", {
    agent_id: "scripted",
    session_id: big,
    input: { role: "user", name: "me", content: [{ type: "text", text: `message ${i}: **some** Markdown, \`code\` and a list\n- one\n- two` }] },
  });
  await idle(big);
}

const { browser, close } = await launch();
try {
  // First paint: from navigation start to the frame after the 200th
  // message is in the DOM, in a fresh page each time.
  const paints = [];
  const scripts = [];
  const transcripts = [];
  for (let run = 0; run < 11; run++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelectorAll("article.msg").length >= 200) {
          obs.disconnect();
          requestAnimationFrame(() => ((window).__painted = performance.now()));
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${base}/#/sessions/${big}`);
    await page.waitForFunction(() => (window).__painted !== undefined);
    paints.push(await page.evaluate(() => (window).__painted));
    const [js, msgs] = await page.evaluate(() => {
      const r = performance.getEntriesByType("resource");
      return [r.find((e) => e.name.endsWith("/ui/app.js")), r.find((e) => e.name.includes("/messages"))].map((e) => e?.responseEnd ?? 0);
    });
    scripts.push(js);
    transcripts.push(msgs);
    await ctx.close();
  }
  console.log(
    `first paint of 200 messages: median ${median(paints).toFixed(0)} ms over ${paints.length} loads ` +
      `(fastest ${Math.min(...paints).toFixed(0)}, slowest ${Math.max(...paints).toFixed(0)}); medians: app.js loaded at ` +
      `${median(scripts).toFixed(0)} ms, the transcript at ${median(transcripts).toFixed(0)} ms`,
  );

  // The frame rate while 1,000 deltas stream: every frame's gap, from the
  // reply's first text to its end.
  const { session_id: long } = await api(base, "POST", "/sessions/", { agent_id: "scripted" });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${base}/#/sessions/${long}`);
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  await page.evaluate(() => {
    const w = window;
    w.__frames = [];
    const tick = (t) => {
      if (document.querySelector("article.msg.assistant .md")) w.__frames.push(t);
      if (!document.querySelector("article.msg.assistant footer")) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.getByRole("textbox", { name: "Message" }).fill("MANY 1000");
  await page.keyboard.press("Enter");
  await page.locator("article.msg.assistant footer", { hasText: "finished" }).waitFor({ timeout: 60000 });
  const frames = await page.evaluate(() => (window).__frames);
  const gaps = frames.slice(1).map((t, i) => t - frames[i]);
  const span = frames[frames.length - 1] - frames[0];
  const events = (await api(base, "GET", `/sessions/${long}/messages?at=1000000`)).messages[1].content.find((b) => b.type === "text").text.split(" ").length - 1;
  console.log(
    `1,000-delta reply (${events} deltas shown): ${frames.length} frames in ${span.toFixed(0)} ms, ` +
      `${((frames.length - 1) / (span / 1000)).toFixed(1)} frames/s, longest frame ${Math.max(...gaps).toFixed(1)} ms, ` +
      `frames over 33 ms: ${gaps.filter((g) => g > 33.4).length}`,
  );
  await ctx.close();
} finally {
  await close();
}
