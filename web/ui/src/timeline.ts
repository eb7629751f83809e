// A session's conversation at a point of its event log, by the rule the
// server's GET /messages?at= follows (server/at.go): every reply of the
// log folded up to that point, the stored transcript up to the last reply
// started by then, and a reply not stored yet (the run in progress) last.
import { appendEvent, newReply, replyIDOf, type Event, type Msg, type Obj } from "./fold.ts";
import type { Frame } from "./api.ts";

export interface Reply {
  msg: Msg;
  first: number; // the sequence of its first event
  events: number; // how many events were folded into it
}

// Folds is the replies of a log, folded frame by frame.
export class Folds {
  replies = new Map<string, Reply>();
  order: string[] = [];
  last = 0;

  // add folds one event; the fold copies what it keeps of it, so one
  // event may be folded again (the scrubber refolds the log).
  add(seq: number, e: Event): Reply | undefined {
    this.last = seq;
    const rid = replyIDOf(e);
    if (rid === null) return undefined;
    let r = this.replies.get(rid);
    if (!r && e.type === "REPLY_START") {
      r = { msg: newReply(e.name ?? "", rid, e.created_at), first: seq, events: 0 };
      this.replies.set(rid, r);
      this.order.push(rid);
    }
    if (r) {
      // As the server's run: a refused event changes nothing.
      appendEvent(r.msg, e);
      r.events++;
    }
    return r;
  }

  static of(frames: Frame[], at: number): Folds {
    const f = new Folds();
    for (const fr of frames) {
      if (fr.seq > at) break;
      f.add(fr.seq, fr.event);
    }
    return f;
  }
}

export interface Shown {
  msg: Obj;
  key: string; // changes whenever what is shown changes
}

// assemble is the conversation of transcript (oldest first, possibly only
// its newest pages) with the folds of the log.
export function assemble(transcript: Obj[], folds: Folds): Shown[] {
  const stored = new Set(transcript.map((m) => m.id));
  let cut = 0;
  let newestStored = 0; // the first sequence of the newest stored reply
  transcript.forEach((m, i) => {
    const r = folds.replies.get(m.id);
    if (r) {
      cut = i + 1;
      newestStored = Math.max(newestStored, r.first);
    }
  });
  // A reply the loaded pages lack is the run in progress only when it
  // started after every stored reply; an older one is on a page not
  // loaded.
  const running = folds.order.filter((id) => !stored.has(id) && folds.replies.get(id)!.first > newestStored);
  if (running.length) cut = transcript.length;
  const out: Shown[] = [];
  for (const m of transcript.slice(0, cut)) {
    const r = folds.replies.get(m.id);
    // A finished reply's fold is what the transcript stores: keeping the
    // stored one spares a redraw when the log's replay catches up.
    const same = r && r.msg.finished_at && r.msg.finished_at === m.finished_at;
    out.push(r && !same ? { msg: r.msg, key: `${m.id}:${r.events}` } : { msg: m, key: `${m.id}:stored` });
  }
  for (const id of running) {
    const r = folds.replies.get(id)!;
    out.push({ msg: r.msg, key: `${id}:${r.events}` });
  }
  return out;
}
