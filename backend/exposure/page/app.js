// The approvals page an exposure serves: it lists the cards waiting and
// sends Allow once / Deny, each bound to the card's hash as shown here.
"use strict";
(function () {
  const list = document.getElementById("cards");
  const status = document.getElementById("status");
  const shown = new Map(); // card id → element

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // An argument with anything a shell would split or expand is quoted,
  // so the command reads as the desktop card shows it.
  function quote(a) {
    return a !== "" && /^[A-Za-z0-9_\/.,:=@%+-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'";
  }

  function what(c) {
    if (c.question) return c.question;
    if (c.argv && c.argv.length) return c.argv.map(quote).join(" ");
    if (c.domain) return c.domain + (c.port ? ":" + c.port : "");
    if (c.changes && c.changes.length) return c.changes.join("\n");
    if (c.paths && c.paths.length) return c.paths.join("\n");
    if (c.url) return c.url;
    return c.tool || c.kind;
  }

  function render(c) {
    const box = el("section", "card");
    box.dataset.card = c.id;
    box.append(el("h2", "", (c.agent || "an agent") + " · " + (c.native || c.tool || c.kind)));
    box.append(el("div", "what", what(c)));
    if (c.reason) box.append(el("p", "reason", c.reason));
    if (c.risks) for (const r of c.risks) box.append(el("p", "meta", "⚠ " + r));
    if (c.cwd) box.append(el("p", "meta", "in " + c.cwd));
    let answer = null;
    if (c.kind === "question") {
      answer = el("textarea");
      answer.setAttribute("aria-label", "Your answer");
      box.append(answer);
    }
    const actions = el("div", "actions");
    const allow = el("button", "allow", c.kind === "question" ? "Answer" : "Allow once");
    const deny = el("button", "deny", "Deny");
    allow.type = deny.type = "button";
    allow.onclick = () => decide(c, "allow", answer ? answer.value : "", box);
    deny.onclick = () => decide(c, "deny", "", box);
    actions.append(allow, deny);
    box.append(actions);
    return box;
  }

  async function decide(c, decision, message, box) {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    let text;
    try {
      const r = await fetch("cards/" + encodeURIComponent(c.id), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ decision, hash: c.hash, message }),
        credentials: "same-origin",
      });
      const body = await r.json().catch(() => ({}));
      text = r.ok ? (decision === "allow" ? "Allowed once." : "Denied.") : body.error || "Refused (" + r.status + ").";
    } catch (e) {
      text = "Could not reach Gatehouse: " + e;
    }
    box.classList.add("done");
    box.querySelector(".actions").replaceWith(el("p", "result", text));
  }

  async function refresh() {
    try {
      const r = await fetch("cards", { credentials: "same-origin" });
      if (!r.ok) {
        const body = await r.json().catch(() => ({}));
        status.textContent = body.error || "This exposure is closed.";
        return r.status !== 401 && r.status !== 410;
      }
      const { cards } = await r.json();
      const ids = new Set(cards.map((c) => c.id));
      for (const [id, box] of shown) {
        if (!ids.has(id) && !box.classList.contains("done")) {
          box.classList.add("done");
          box.querySelector(".actions")?.replaceWith(el("p", "result", "Decided elsewhere or withdrawn."));
        }
      }
      for (const c of cards) {
        if (!shown.has(c.id)) {
          const box = render(c);
          shown.set(c.id, box);
          list.prepend(box);
        }
      }
      status.textContent = cards.length === 0 ? "No card is waiting." : cards.length + (cards.length === 1 ? " card waits." : " cards wait.");
    } catch (e) {
      status.textContent = "Could not reach Gatehouse; retrying.";
    }
    return true;
  }

  async function loop() {
    if (await refresh()) setTimeout(loop, 1500);
  }
  loop();
})();
