// What the browser scripts share: Debian's chromium through
// playwright-core (no browser download) and the API as any client calls
// it. playwright gives each launch a fresh --user-data-dir of its own (it
// refuses one in args), so no run sees another's storage.
import { chromium } from "playwright-core";

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

// watch fails the run on any error of the page, and on any request that
// leaves the page's origin; cut tolerates the network errors of a
// connection cut on purpose.
export function watch(page, origin, failures, cut = false) {
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    const text = m.text();
    if (m.type() !== "error" || /status of 4\d\d/.test(text)) return;
    if (cut && /net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_|EMPTY_RESPONSE|NETWORK_CHANGED)/.test(text)) return;
    failures.push(`console error: ${text}`);
  });
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.protocol !== "data:" && u.origin !== origin) failures.push(`a request left the origin: ${r.url()}`);
  });
}

export async function api(base, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { "X-User-ID": "me", ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
