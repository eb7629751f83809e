// A small Markdown renderer that builds DOM nodes and never parses HTML:
// every character of the model's or a tool's text reaches the page as a
// text node, so "<script>" or "<img onerror>" is shown, not run. Links
// become anchors only for http(s) and mailto URLs; anything else
// (javascript:, data:) stays text. Images are not fetched (the CSP would
// refuse them anyway): they show as their alt text and URL.

type Node = globalThis.Node;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const k of kids) e.append(k);
  return e;
}

export function safeURL(u: string): string | null {
  const t = u.trim();
  return /^(https?:\/\/|mailto:)/i.test(t) ? t : null;
}

// flanks is CommonMark's rule for underscores: they emphasize only at
// word edges, so snake_case and __dunder__ names inside words stay text.
function flanks(text: string, i: number, m: RegExpExecArray): boolean {
  if (m[1][0] !== "_") return true;
  const after = text[i + m[0].length];
  return (i === 0 || !/\w/.test(text[i - 1])) && (after === undefined || !/\w/.test(after));
}

// inline renders code spans, links, bold and emphasis.
export function inline(text: string): Node[] {
  const out: Node[] = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push(document.createTextNode(plain));
    plain = "";
  };
  let i = 0;
  const special = /[`!\[*_]|https?:\/\//g;
  while (i < text.length) {
    // Plain runs are taken whole: only these characters can start markup.
    special.lastIndex = i;
    const next = special.exec(text);
    const j = next ? next.index : text.length;
    if (j > i) {
      plain += text.slice(i, j);
      i = j;
      continue;
    }
    const rest = text.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^(`+)([^]*?[^`])\1(?!`)/.exec(rest))) {
      flush();
      out.push(el("code", m[2].replace(/^ ([^]*) $/, "$1")));
      i += m[0].length;
    } else if ((m = /^!?\[([^\]\n]*)\]\(([^)\s]*)(?:\s+"[^"\n]*")?\)/.exec(rest))) {
      const href = safeURL(m[2]);
      if (m[0][0] === "!" || !href) {
        plain += m[0];
      } else {
        flush();
        const a = el("a", ...inline(m[1]));
        a.href = href;
        a.rel = "noopener noreferrer nofollow";
        a.target = "_blank";
        out.push(a);
      }
      i += m[0].length;
    } else if ((m = /^(\*\*|__)(?=\S)([^]*?\S)\1/.exec(rest)) && flanks(text, i, m)) {
      flush();
      out.push(el("strong", ...inline(m[2])));
      i += m[0].length;
    } else if ((m = /^(\*|_)(?=[^\s*_])([^]*?[^\s])\1(?![*_\w])/.exec(rest)) && flanks(text, i, m)) {
      flush();
      out.push(el("em", ...inline(m[2])));
      i += m[0].length;
    } else if ((m = /^https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"]/.exec(rest)) && (i === 0 || /\s/.test(text[i - 1]))) {
      flush();
      const a = el("a", m[0]);
      a.href = m[0];
      a.rel = "noopener noreferrer nofollow";
      a.target = "_blank";
      out.push(a);
      i += m[0].length;
    } else {
      plain += text[i];
      i++;
    }
  }
  flush();
  return out;
}

function withBreaks(lines: string[]): Node[] {
  const out: Node[] = [];
  lines.forEach((l, i) => {
    if (i > 0) out.push(el("br"));
    out.push(...inline(l));
  });
  return out;
}

// render turns Markdown into a fragment of safe nodes.
export function render(src: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m: RegExpExecArray | null;
    if (/^\s*$/.test(line)) {
      i++;
    } else if ((m = /^(\s*)(```+|~~~+)\s*([\w+-]*)/.exec(line))) {
      const fence = m[2];
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i++; // the closing fence (or the end of a text still streaming)
      const code = el("code", body.join("\n"));
      if (m[3]) code.dataset.lang = m[3];
      frag.append(el("pre", code));
    } else if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      const h = document.createElement(`h${Math.min(m[1].length + 2, 6)}` as "h3");
      h.append(...inline(m[2]));
      frag.append(h);
      i++;
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      frag.append(el("hr"));
      i++;
    } else if (/^\s*>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*> ?/, ""));
      const q = el("blockquote");
      q.append(render(body.join("\n")));
      frag.append(q);
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? "ol" : "ul");
      const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
      while (i < lines.length && (m = item.exec(lines[i]))) {
        const body = [m[2]];
        i++;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !item.test(lines[i])) body.push(lines[i++].trim());
        list.append(el("li", ...withBreaks(body)));
      }
      frag.append(list);
    } else {
      const body: string[] = [];
      while (
        i < lines.length &&
        !/^\s*$/.test(lines[i]) &&
        !/^(\s*)(```|~~~)|^#{1,6}\s|^\s*>|^\s*([-*+]|\d+[.)])\s+/.test(lines[i])
      ) {
        body.push(lines[i++]);
      }
      if (body.length === 0) body.push(lines[i++]);
      frag.append(el("p", ...withBreaks(body)));
    }
  }
  return frag;
}
