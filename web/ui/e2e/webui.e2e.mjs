// The web UI in headless Chromium against the built `agentscope serve`
// (run by cmd/agentscope's TestWebUIInBrowser, which starts the servers):
// BASE_URL serves the demo agent ("demo") and a scripted model
// ("scripted"); TOKEN_URL a server that wants TOKEN. Each step leaves a
// screenshot in ARTIFACTS. Exits non-zero on the first failure.
import assert from "node:assert/strict";
import { join } from "node:path";
import { api, launch, watch } from "./lib.mjs";

const base = process.env.BASE_URL;
const artifacts = process.env.ARTIFACTS;
assert.ok(base && artifacts, "BASE_URL and ARTIFACTS are required");
const origin = new URL(base).origin;
const failures = [];
const step = (name) => console.log(`== ${name}`);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

const { browser, close } = await launch();
let current;
// openTab opens url in a new tab of the browser context c, its page
// errors, console errors and requests to another origin watched.
const openTab = async (c, url) => {
  const p = await c.newPage();
  watch(p, origin, failures);
  await p.goto(url);
  return p;
};
try {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  current = page;
  watch(page, origin, failures);
  await page.goto(base + "/");

  const messageBox = (p = page) => p.getByRole("textbox", { name: "Message" });
  const lastReply = (p = page) => p.locator("article.msg.assistant").last();
  const sessionID = (p = page) => decodeURIComponent(new URL(p.url()).hash.replace("#/sessions/", ""));
  const finished = (p, reason, timeout = 20000) =>
    lastReply(p).locator("footer", { hasText: `finished: ${reason}` }).waitFor({ timeout });
  async function newSession(agent) {
    await page.getByLabel("Agent").selectOption(agent);
    const before = page.url();
    await page.getByRole("button", { name: "New session" }).click();
    await page.waitForURL((u) => u.href !== before && /#\/sessions\//.test(u.href));
    await messageBox().waitFor();
  }
  // send sends text and waits for the reply to appear, so that what
  // follows looks at the new reply, not the last one.
  async function send(text, p = page) {
    const replies = p.locator("article.msg.assistant");
    const before = await replies.count();
    await messageBox(p).fill(text);
    await messageBox(p).press("Enter");
    await replies.nth(before).waitFor();
  }

  step("send a message and see the streamed answer (keyboard only)");
  await newSession("demo");
  await messageBox().focus();
  await page.keyboard.type("line one");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("line two");
  assert.equal(await messageBox().inputValue(), "line one\nline two", "Shift+Enter is a new line");
  assert.equal(await page.locator("article.msg").count(), 0, "Shift+Enter sent nothing");
  await messageBox().fill("");
  await page.keyboard.type("What is 12*(3+4)?");
  await page.keyboard.press("Enter");
  await finished(page, "completed");
  const answer = await lastReply().locator(":scope > .md").allTextContents();
  assert.match(answer.join(" "), /84/, `the answer: ${answer}`);
  assert.equal(await lastReply().locator("details.thinking").count() > 0, true, "the thinking block");
  assert.equal(await lastReply().locator(".tool.call[data-state=finished] .tool-name", { hasText: "calculate" }).count(), 1);
  assert.match(await lastReply().locator("footer").textContent(), /tokens: \d+ in, \d+ out/);
  assert.equal(await messageBox().inputValue(), "", "the box is cleared");
  await shot(page, "01-send");

  step("approve a confirmation: the tool result and the final text");
  await send("save a note: buy milk");
  const approve = page.getByRole("button", { name: "Approve" });
  await approve.waitFor();
  // The card comes off the stream, the status line off the session's
  // status: either may show first.
  await page.locator("#status", { hasText: /^awaiting permission$/ }).waitFor();
  await lastReply().locator(".tool.call[data-state=asking]").waitFor();
  await shot(page, "02-confirm");
  await approve.click();
  await finished(page, "completed");
  await lastReply().locator(".tool.result[data-state=success]", { hasText: 'saved the note "buy milk"' }).waitFor();
  assert.match((await lastReply().locator(":scope > .md").allTextContents()).join(" "), /That is all I can tell from it/);
  assert.equal(await approve.count(), 0, "the card is gone");
  await shot(page, "03-approved");

  step("deny one");
  await send("save a note: buy eggs");
  await page.getByRole("button", { name: "Deny" }).click();
  await finished(page, "completed");
  assert.equal(await lastReply().locator(".tool.call[data-state=finished]").count(), 1);
  assert.equal(await lastReply().locator(".tool.result", { hasText: "saved the note" }).count(), 0, "the denied tool did not run");
  await shot(page, "04-denied");

  step("edit the arguments as JSON, refused until they parse and fit the tool's schema");
  await send("save a note: buy tea");
  await page.getByRole("button", { name: "Edit" }).click();
  const editor = page.getByRole("textbox", { name: "Arguments of save_note" });
  await editor.fill("{not json");
  await approve.click();
  await page.locator(".card .problem", { hasText: "not JSON" }).waitFor();
  await editor.fill('{"txt": "buy green tea"}');
  await approve.click();
  await page.locator(".card .problem", { hasText: "save_note's schema: arguments.text is required" }).waitFor();
  await editor.fill('{"text": 42}');
  await approve.click();
  await page.locator(".card .problem", { hasText: "arguments.text must be string, not integer" }).waitFor();
  await editor.fill('{"text": "buy green tea"}');
  await approve.click();
  await finished(page, "completed");
  await lastReply().locator(".tool.result", { hasText: 'saved the note "buy green tea"' }).waitFor();

  step("Stop during a slow tool: the interrupted result");
  await send("wait 30 seconds");
  await lastReply().locator(".tool.result[data-state=running]").waitFor();
  const stop = page.getByRole("button", { name: "Stop" });
  assert.equal(await stop.isEnabled(), true, "Stop is enabled while the tool runs");
  await stop.click();
  await finished(page, "interrupted");
  await lastReply().locator('.tool.result[data-state="interrupted"], .tool.result[data-state="error"]').waitFor();
  assert.equal(await stop.isDisabled(), true, "Stop is disabled once the reply ended");
  await shot(page, "05-stopped");

  step("the same session in two tabs: answered in one, closed in both");
  await send("save a note: two tabs");
  await approve.waitFor();
  const other = await openTab(ctx, page.url());
  const approveOther = other.getByRole("button", { name: "Approve" });
  await approveOther.waitFor();
  await approveOther.click();
  await approve.waitFor({ state: "detached" });
  await finished(page, "completed");
  await finished(other, "completed");
  await shot(page, "06-two-tabs-first");
  await shot(other, "06-two-tabs-second");
  await other.close();

  step("the card survives a reload");
  await send("save a note: after reload");
  await approve.waitFor();
  await page.reload();
  await approve.waitFor();
  await page.getByRole("button", { name: "Deny" }).click();
  await finished(page, "completed");

  step("approve a confirmation by keyboard only: Tab to Approve, Enter");
  await newSession("external");
  const extSID = sessionID();
  const extBadge = (p, text) => p.locator(`#session-list a[data-session="${extSID}"] .badge`, { hasText: new RegExp(`^${text}$`) }).waitFor();
  const extCall = (p = page) => lastReply(p).locator('.tool.call[data-call="call_ext"]');
  await send("EXTERNAL serendipity");
  await approve.waitFor();
  await extCall().and(page.locator("[data-state=asking]")).waitFor();
  await messageBox().focus();
  let tabs = 0;
  while (!(await approve.evaluate((el) => el === document.activeElement))) {
    assert.ok(++tabs < 200, "Tab never reached Approve");
    await page.keyboard.press("Tab");
  }
  await shot(page, "06b-keyboard-approve");
  await page.keyboard.press("Enter");

  step("an external call: its card and the badge, a reload, two tabs, the result pasted in one");
  const extCard = (p = page) => p.getByRole("region", { name: "Result of lookup" });
  await extCard().waitFor();
  await approve.waitFor({ state: "detached" });
  await extCall().and(page.locator("[data-state=submitted]")).waitFor();
  assert.match(await extCard().locator("pre.args").textContent(), /"word": "serendipity"/, "the card shows the call's arguments");
  await page.locator("#status", { hasText: /^awaiting external result$/ }).waitFor();
  await extBadge(page, "awaiting external result");
  assert.equal(await page.getByRole("button", { name: "Stop" }).isDisabled(), true, "nothing to stop while the host runs the tool");
  await shot(page, "06c-external-card");
  await page.reload();
  await extCard().waitFor();
  await extCall().and(page.locator("[data-state=submitted]")).waitFor();
  await extBadge(page, "awaiting external result");
  await shot(page, "06d-external-reloaded");
  const second = await openTab(ctx, page.url());
  await extCard(second).waitFor();
  await extBadge(second, "awaiting external result");
  await shot(second, "06e-external-second-tab");
  const pasted = "a happy accident (from the host)";
  await page.getByRole("textbox", { name: "Result of lookup" }).fill(pasted);
  await extCard().getByRole("button", { name: "Submit result" }).click();
  await finished(page, "completed");
  await finished(second, "completed");
  await extCard(second).waitFor({ state: "detached" });
  assert.equal(await extCard().count(), 0, "the card is gone in the tab that answered");
  for (const p of [page, second]) {
    await lastReply(p).locator(".tool.result[data-state=success]", { hasText: pasted }).waitFor();
    await extCall(p).and(p.locator("[data-state=finished]")).waitFor();
    assert.equal((await lastReply(p).locator(":scope > .md").textContent()).trim(), `the lookup says: ${pasted}`);
    await extBadge(p, "idle");
  }
  await shot(page, "06f-external-answered-first");
  await shot(second, "06f-external-answered-second");
  await second.close();

  step("an external result submitted as an error");
  await send("EXTERNAL qwzx");
  await approve.click();
  await extCard().waitFor();
  await page.getByRole("textbox", { name: "Result of lookup" }).fill("no such word");
  await extCard().getByRole("button", { name: "Submit as error" }).click();
  await finished(page, "completed");
  await lastReply().locator(".tool.result[data-state=error]", { hasText: "no such word" }).waitFor();
  assert.equal(await extCard().count(), 0, "the card is gone");
  await shot(page, "06g-external-error");

  step("the external call's states over the event log: pending, asking, allowed, submitted, finished");
  {
    const range = page.getByRole("slider", { name: "Time travel" });
    const last = Number(await range.getAttribute("max"));
    const states = [];
    for (let at = 0; at <= last; at++) {
      await range.evaluate((el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, at);
      await page.locator(`#scrub-at[data-at="${at}"]`).waitFor();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const call = page.locator("article.msg.assistant").first().locator('.tool.call[data-call="call_ext"]');
      const state = (await call.count()) ? await call.getAttribute("data-state") : null;
      if (state && states[states.length - 1] !== state) states.push(state);
    }
    assert.deepEqual(states, ["pending", "asking", "allowed", "submitted", "finished"], "the call's states, in order");
    // The last position is the live end again.
    await page.locator("#scrub-at", { hasText: "live" }).waitFor();
  }

  step("reload mid-stream: the reply finishes with its text intact");
  await newSession("scripted");
  const slowText = Array.from({ length: 40 }, (_, i) => `word${String(i + 1).padStart(2, "0")}`).join(" ");
  await send("SLOW");
  await lastReply().locator(".md", { hasText: "word05" }).waitFor();
  await page.reload();
  await lastReply().locator(".md").first().waitFor();
  const partial = (await lastReply().locator(":scope > .md").textContent()) ?? "";
  assert.ok(partial.length < slowText.length, "reloaded before the end");
  await shot(page, "07-reloaded-mid-stream");
  await finished(page, "completed");
  assert.equal((await lastReply().locator(":scope > .md").textContent()).trim(), slowText);
  assert.equal(await page.locator("article.msg.assistant").count(), 1);

  step("a dropped connection reconnects with Last-Event-ID");
  // The same server through a proxy that cuts its connections on demand.
  const proxied = await ctx.newPage();
  watch(proxied, new URL(process.env.PROXY_URL).origin, failures, true);
  const resumed = [];
  proxied.on("request", (r) => {
    if (r.url().includes("/stream")) resumed.push(r.headers()["last-event-id"] ?? "");
  });
  await proxied.goto(`${process.env.PROXY_URL}/#/sessions/${sessionID()}`);
  await finished(proxied, "completed");
  await send("SLOW again", proxied);
  await lastReply(proxied).locator(".md", { hasText: "word05" }).waitFor();
  const cutN = Number(await (await fetch(process.env.CUT_URL)).text());
  assert.ok(cutN > 0, "the proxy cut the connections");
  await finished(proxied, "completed");
  assert.equal((await lastReply(proxied).locator(":scope > .md").textContent()).trim(), slowText);
  assert.ok(resumed.length >= 2 && Number(resumed[resumed.length - 1]) > 0, `reconnected with Last-Event-ID: ${JSON.stringify(resumed)}`);
  assert.equal(await proxied.locator("article.msg.assistant").count(), 2);
  await shot(proxied, "08-reconnected");
  await proxied.close();
  await finished(page, "completed");
  assert.equal(await page.locator("article.msg.assistant").count(), 2);

  step("scrub a finished reply back and forth: the server's fold at every event");
  const sid = sessionID();
  const range = page.getByRole("slider", { name: "Time travel" });
  const last = Number(await range.getAttribute("max"));
  assert.ok(last > 80, `the log has ${last} events`);
  const seen = async () =>
    page.locator("article.msg").evaluateAll((els) =>
      els.map((e) => ({
        role: e.classList.contains("user") ? "user" : "assistant",
        text: Array.from(e.querySelectorAll(":scope > .md"))
          .map((m) => m.textContent)
          .join("")
          .trim(),
      })),
    );
  const positions = [...Array(last + 1).keys()].filter((p) => p % 3 === 0 || p === last);
  for (const at of [...positions, ...positions.slice().reverse().filter((_, i) => i % 4 === 0)]) {
    await range.evaluate((el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, at);
    await page.locator(`#scrub-at[data-at="${at}"]`).waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const server = await api(base, "GET", `/sessions/${sid}/messages?at=${at}&limit=200`);
    const want = server.messages.map((m) => ({
      role: m.role,
      text: m.content
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("")
        .trim(),
    }));
    assert.deepEqual(await seen(), want, `at=${at}`);
    if (at === positions[Math.floor(positions.length / 4)]) await shot(page, "09-scrubbed");
  }
  await page.getByRole("button", { name: "Live" }).click();
  await page.locator("#scrub-at", { hasText: "live" }).waitFor();
  assert.equal((await lastReply().locator(":scope > .md").textContent()).trim(), slowText);

  step("model output with <script>, <img onerror> and javascript: links renders as text");
  await send("XSS");
  await finished(page, "completed");
  const md = lastReply().locator(":scope > .md");
  const text = await md.textContent();
  for (const literal of ["<script>window.__xss = 1</script>", '<img src=x onerror="window.__xss = 2">', "[a link](javascript:window.__xss=3)", '<a href="javascript:window.__xss=4">raw</a>']) {
    assert.ok(text.includes(literal), `shown as text: ${literal} in ${text}`);
  }
  assert.equal(await md.locator("strong", { hasText: "bold" }).count(), 1, "Markdown still renders");
  assert.equal(await page.locator("#messages script, #messages img, #messages a[href^='javascript' i]").count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined, "nothing of it ran");
  await shot(page, "10-hostile-markdown");

  step("a failed reply shows its typed error");
  await send("FAIL");
  const alert = lastReply().getByRole("alert");
  await alert.waitFor();
  const shown = await alert.textContent();
  const stored = (await api(base, "GET", `/sessions/${sessionID()}/messages?limit=1`)).messages[0];
  assert.ok(stored.error?.type, `the stored reply has a typed error: ${JSON.stringify(stored.error)}`);
  assert.equal(shown, `${stored.error.type}: ${stored.error.message}`);
  await shot(page, "11-error");

  step("375 px wide");
  const narrow = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const phone = await narrow.newPage();
  current = phone;
  watch(phone, origin, failures);
  await phone.goto(page.url());
  await lastReply(phone).locator("footer").waitFor();
  for (const loc of [messageBox(phone), phone.getByRole("button", { name: "Send" }), phone.getByRole("button", { name: "Stop" })]) {
    const box = await loc.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `inside 375 px: ${JSON.stringify(box)}`);
  }
  const wide = await phone.evaluate(() =>
    Array.from(document.querySelectorAll("body *"))
      .filter((e) => e.getBoundingClientRect().right > 376 && e.checkVisibility())
      .map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  );
  assert.deepEqual(wide, [], "no sideways scrolling at 375 px");
  await shot(phone, "12-narrow");
  await phone.getByRole("button", { name: "Sessions" }).click();
  await phone.getByRole("button", { name: "New session" }).waitFor();
  await shot(phone, "13-narrow-sessions");
  await narrow.close();

  step("the session list: newest first, each status, rename, open by URL, older sessions, delete");
  {
    await newSession("demo");
    const sid = sessionID();
    const entry = (id, p = page) => p.locator(`#session-list a[data-session="${id}"]`);
    const badge = (id, text) => entry(id).locator(".badge", { hasText: new RegExp(`^${text}$`) }).waitFor();
    assert.equal(await page.locator("#session-list a").first().getAttribute("data-session"), sid, "the newest session first");
    await send("save a note: listed");
    await approve.waitFor();
    await badge(sid, "awaiting permission");
    await page.getByRole("button", { name: "Deny" }).click();
    await finished(page, "completed");
    await badge(sid, "idle");
    await send("wait 30 seconds");
    await lastReply().locator(".tool.result[data-state=running]").waitFor();
    await badge(sid, "running");
    await page.getByRole("button", { name: "Stop" }).click();
    await finished(page, "interrupted");
    await badge(sid, "idle");
    await page.getByLabel("Name").fill("groceries");
    await page.getByRole("button", { name: "Rename" }).click();
    await entry(sid).locator(".name", { hasText: /^groceries$/ }).waitFor();
    const stored = await api(base, "GET", "/sessions/?limit=1000&offset=0");
    assert.equal(stored.sessions.find((s) => s.session.id === sid)?.session.config?.name, "groceries", "renamed on the server");
    await shot(page, "11b-session-list");
    // More sessions than a page of the list: the one above is on the
    // second, and a new tab opens it by its URL all the same.
    for (let i = 0; i < 50; i++) await api(base, "POST", "/sessions/", { agent_id: "demo" });
    const byURL = await openTab(ctx, `${base}/#/sessions/${sid}`);
    await byURL.locator("article.msg.assistant").nth(1).waitFor();
    // The name comes with the session's entry, which the tab looks up
    // past the list's first page once the list is in.
    await byURL.waitForFunction(() => document.getElementById("session-name").value === "groceries");
    const older = byURL.getByRole("button", { name: "Older sessions" });
    await older.waitFor();
    assert.equal(await byURL.locator("#session-list a").count(), 50, "one page of the list");
    assert.equal(await entry(sid, byURL).count(), 0, "the session is on the second page");
    await older.click();
    await entry(sid, byURL).waitFor();
    assert.equal(await byURL.locator("#session-list a").count(), stored.total + 50, "every session after Older sessions");
    await byURL.close();
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL((u) => !/#\/sessions\//.test(u.href));
    await entry(sid).waitFor({ state: "detached" });
    const gone = await fetch(`${base}/sessions/${sid}/messages`, { headers: { "X-User-ID": "me" } });
    assert.equal(gone.status, 404, "deleted on the server");
  }

  step("a tool result carrying an image shows it inline");
  await newSession("images");
  await send("IMAGE");
  const approveImage = page.getByRole("button", { name: "Approve" });
  await approveImage.or(lastReply().locator("footer", { hasText: "finished: completed" })).first().waitFor();
  if (await approveImage.count()) await approveImage.click();
  await finished(page, "completed");
  const img = lastReply().locator(".tool.result img.data");
  await img.waitFor();
  assert.match(await img.getAttribute("src"), /^data:image\/png;base64,/);
  assert.ok(await img.evaluate((e) => e.complete && e.naturalWidth > 0), "the image decoded");
  await shot(page, "11c-image");

  step("remember the suggested rule: the next such call does not ask");
  await newSession("demo");
  await send("save a note: remembered");
  await approve.waitFor();
  await page.getByRole("checkbox", { name: /^Remember: allow save_note/ }).check();
  await approve.click();
  await finished(page, "completed");
  await lastReply().locator(".tool.result", { hasText: 'saved the note "remembered"' }).waitFor();
  await send("save a note: unasked");
  await finished(page, "completed");
  await lastReply().locator(".tool.result", { hasText: 'saved the note "unasked"' }).waitFor();
  assert.equal(await approve.count(), 0, "no card for the remembered call");

  step("light and dark follow the system");
  const scheme = async (colorScheme) => {
    const c = await browser.newContext({ colorScheme });
    const p = await openTab(c, base + "/");
    await messageBox(p).or(p.getByRole("button", { name: "New session" })).first().waitFor();
    const colors = await p.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]);
    if (colorScheme === "dark") await shot(p, "15-dark");
    await c.close();
    return colors;
  };
  const luminance = (rgb) => rgb.match(/\d+/g).slice(0, 3).reduce((a, v) => a + Number(v), 0);
  const [lightBg, lightFg] = await scheme("light");
  const [darkBg, darkFg] = await scheme("dark");
  assert.ok(luminance(lightBg) > luminance(lightFg), `light: ${lightBg} behind ${lightFg}`);
  assert.ok(luminance(darkBg) < luminance(darkFg), `dark: ${darkBg} behind ${darkFg}`);

  if (process.env.TOKEN_URL) {
    step("a server with a token: asked once, sent as Bearer");
    const tctx = await browser.newContext();
    const tp = await tctx.newPage();
    const tOrigin = new URL(process.env.TOKEN_URL).origin;
    watch(tp, tOrigin, failures);
    const auth = [];
    tp.on("request", (r) => {
      if (!r.url().includes("/ui/") && new URL(r.url()).pathname !== "/") auth.push(r.headers()["authorization"] ?? "");
    });
    await tp.goto(process.env.TOKEN_URL + "/");
    const tokenBox = tp.getByLabel("Token");
    await tokenBox.waitFor();
    await shot(tp, "14-token");
    await tokenBox.fill(process.env.TOKEN);
    await tp.getByRole("button", { name: "Save" }).click();
    await tp.getByRole("button", { name: "New session" }).click();
    await tp.waitForURL(/#\/sessions\//);
    await tp.reload();
    await tp.getByRole("textbox", { name: "Message" }).waitFor();
    assert.equal(await tp.locator("dialog[open]").count(), 0, "asked only once");
    const after = auth.slice(auth.indexOf(`Bearer ${process.env.TOKEN}`));
    assert.ok(after.length > 3 && after.every((a) => a === `Bearer ${process.env.TOKEN}`), `Authorization headers: ${JSON.stringify(auth)}`);
    await tctx.close();
  }

  assert.deepEqual(failures, [], "errors or requests off the origin");
  console.log("the web UI passed every step");
} catch (err) {
  // What the page showed when it failed, beside the steps' screenshots.
  await current?.screenshot({ path: join(artifacts, "failure.png") }).catch(() => {});
  throw err;
} finally {
  await close();
}
