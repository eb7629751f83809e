// The server's public API, as any client calls it: X-User-ID on every
// call, the bearer token once the server asked for one, and the SSE
// stream read with fetch, since EventSource can send neither header nor
// Last-Event-ID of our choosing.
import type { Event, Obj } from "./fold.ts";

const store = window.localStorage;

export function user(): string {
  return store.getItem("agentscope.user") || "me";
}
export function setUser(u: string): void {
  store.setItem("agentscope.user", u);
}
function token(): string {
  return store.getItem("agentscope.token") || "";
}
export function setToken(t: string): void {
  store.setItem("agentscope.token", t);
}

export class APIError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${status}: ${detail}`);
  }
}

// onUnauthorized is asked for a token when the server answers 401; the
// call is retried once with it.
export let onUnauthorized: () => Promise<string | null> = async () => null;
export function setUnauthorizedHandler(f: () => Promise<string | null>): void {
  onUnauthorized = f;
}

function headers(extra?: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { "X-User-ID": user(), ...extra };
  const t = token();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

function detailOf(body: any, fallback: string): string {
  const d = body?.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x?.msg ?? JSON.stringify(x)).join("; ");
  return fallback;
}

export async function call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(path, {
      method,
      headers: headers(body === undefined ? undefined : { "Content-Type": "application/json" }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (res.status === 401 && attempt === 0) {
      const t = await onUnauthorized();
      if (t !== null) {
        setToken(t);
        continue;
      }
    }
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) throw new APIError(res.status, detailOf(parsed, res.statusText || text));
    return parsed;
  }
}

export interface Frame {
  seq: number;
  event: Event;
}

// Stream follows a session's SSE stream from after seq `since`, and
// reconnects with Last-Event-ID when the connection drops, so a frame is
// handed out once, in order, whatever happens to the connection.
export class Stream {
  private ctrl = new AbortController();
  private closed = false;
  last: number;
  connected = false;

  constructor(
    private sid: string,
    since: number,
    private onFrames: (frames: Frame[]) => void,
    private onState: (connected: boolean, err?: string) => void,
  ) {
    this.last = since;
    void this.loop();
  }

  close(): void {
    this.closed = true;
    this.ctrl.abort();
  }

  // drop cuts the connection as a network failure would (for tests and
  // the "reconnect" control); the stream reconnects by itself.
  drop(): void {
    this.ctrl.abort();
  }

  private async loop(): Promise<void> {
    let backoff = 250;
    while (!this.closed) {
      this.ctrl = new AbortController();
      try {
        const h = headers({ Accept: "text/event-stream" });
        if (this.last > 0) h["Last-Event-ID"] = String(this.last);
        const q = this.last > 0 ? "" : "?since=0";
        const res = await fetch(`/sessions/${encodeURIComponent(this.sid)}/stream${q}`, { headers: h, signal: this.ctrl.signal });
        if (res.status === 401) {
          const t = await onUnauthorized();
          if (t !== null) {
            setToken(t);
            continue;
          }
        }
        if (!res.ok || !res.body) {
          let detail = res.statusText;
          try {
            detail = detailOf(await res.json(), detail);
          } catch {
            /* not JSON */
          }
          throw new APIError(res.status, detail);
        }
        this.connected = true;
        this.onState(true);
        backoff = 250;
        await this.read(res.body);
        throw new Error("the stream ended");
      } catch (err) {
        this.connected = false;
        if (this.closed) return;
        if (err instanceof APIError && (err.status === 404 || err.status === 422)) {
          this.onState(false, err.message);
          return;
        }
        this.onState(false, (err as Error).message);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    let id = -1;
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      const frames: Frame[] = [];
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (line === "") {
          if (data.length) {
            // Frames replayed twice (a reconnect racing the live feed)
            // are skipped by their sequence.
            if (id > this.last) {
              frames.push({ seq: id, event: JSON.parse(data.join("\n")) as Event });
              this.last = id;
            }
          }
          id = -1;
          data = [];
        } else if (line.startsWith("id:")) {
          id = Number(line.slice(3).trim());
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""));
        }
      }
      if (frames.length) this.onFrames(frames);
    }
  }
}

export interface SessionEntry {
  session: { id: string; agent_id: string; config: { name: string | null; [k: string]: unknown }; created_at: string; updated_at: string };
  is_running: boolean;
  status: string;
}

export const api = {
  agents: (): Promise<{ agents: Obj[] }> => call("GET", "/agent/"),
  tools: (agentID: string): Promise<{ tools: { name: string; parameters: unknown }[] }> =>
    call("GET", `/agent/${encodeURIComponent(agentID)}/tools`),
  sessions: (limit: number, offset: number): Promise<{ sessions: SessionEntry[]; total: number }> =>
    call("GET", `/sessions/?limit=${limit}&offset=${offset}`),
  createSession: (agentID: string): Promise<{ session_id: string }> => call("POST", "/sessions/", { agent_id: agentID }),
  rename: (sid: string, name: string) => call("PATCH", `/sessions/${encodeURIComponent(sid)}`, { name }),
  remove: (sid: string) => call("DELETE", `/sessions/${encodeURIComponent(sid)}`),
  status: (sid: string, agent: string): Promise<{ status: string }> =>
    call("GET", `/sessions/${encodeURIComponent(sid)}/status?agent_id=${encodeURIComponent(agent)}`),
  messages: (sid: string, before?: string): Promise<{ messages: Obj[]; has_more: boolean; is_running: boolean }> =>
    call("GET", `/sessions/${encodeURIComponent(sid)}/messages?limit=200${before ? `&before=${encodeURIComponent(before)}` : ""}`),
  chat: (agentID: string, sid: string, input: unknown) => call("POST", "/chat/", { agent_id: agentID, session_id: sid, input }),
  interrupt: (sid: string) => call("POST", `/sessions/${encodeURIComponent(sid)}/interrupt`),
};
