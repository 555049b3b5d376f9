// The approval console's page script: served as its own file (the page's CSP allows no inline
// script). Everything a prompt carries is untrusted text: it is written with textContent only,
// never as HTML.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="toolwire-csrf"]').content;
  const pollMs = Number(document.body.dataset.pollMs) || 1000;
  const pendingList = document.getElementById("pending");
  const settledList = document.getElementById("settled");
  const empty = document.getElementById("empty");
  const status = document.getElementById("status");
  // id -> entry; a card with a notice stays 10 s after its prompt left, so the person reads it.
  const cards = new Map();
  const KEEP_MS = 10000;
  let lastSettled = "";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function notice(entry, text, isError) {
    entry.notice.textContent = text;
    entry.notice.className = isError ? "notice error" : "notice";
    entry.keepUntil = Date.now() + KEEP_MS;
  }

  async function errorText(response) {
    try {
      const body = await response.json();
      if (body && typeof body.error === "string") return body.error;
    } catch (_) { /* not JSON */ }
    return "HTTP " + response.status;
  }

  async function decide(entry, action, payload) {
    entry.buttons.forEach((b) => { b.disabled = true; });
    let response;
    try {
      response = await fetch("/api/prompts/" + entry.id + "/" + action, {
        method: "POST",
        credentials: "same-origin",
        cache: "no-store",
        headers: { "content-type": "application/json", "x-toolwire-csrf": csrf },
        body: JSON.stringify(payload),
      });
    } catch (e) {
      notice(entry, "the console is unreachable: " + e.message, true);
      entry.buttons.forEach((b) => { b.disabled = false; });
      return;
    }
    if (response.ok) {
      const body = await response.json();
      entry.card.classList.add("settled");
      notice(entry, body.outcome_text, false);
      entry.decided = true;
      return;
    }
    const text = await errorText(response);
    notice(entry, text, true);
    if (response.status === 422) {
      // A bad edit: nothing was decided, so the person can fix it.
      entry.buttons.forEach((b) => { b.disabled = false; });
    } else {
      entry.card.classList.add("settled");
      entry.decided = true;
    }
  }

  function card(prompt) {
    const entry = { id: prompt.id, keepUntil: 0, decided: false };
    const card = el("article", "prompt");
    card.dataset.id = String(prompt.id);
    card.appendChild(el("h3", "tool", prompt.tool_name));
    const who = el("dl", "who");
    who.appendChild(el("dt", null, "tool use"));
    who.appendChild(el("dd", "tool-use-id", prompt.tool_use_id || "(the agent sent no id)"));
    who.appendChild(el("dt", null, "asked by"));
    const principal = prompt.tenant ? prompt.principal + " (tenant " + prompt.tenant + ")" : prompt.principal;
    who.appendChild(el("dd", "principal", principal));
    who.appendChild(el("dt", null, "client"));
    who.appendChild(el("dd", "client", prompt.client || "(the client did not name itself)"));
    who.appendChild(el("dt", null, "asked at"));
    who.appendChild(el("dd", "asked-at", new Date(prompt.asked_at_ms).toLocaleTimeString()));
    who.appendChild(el("dt", null, "denied if unanswered"));
    entry.expires = el("dd", "expires", "");
    who.appendChild(entry.expires);
    card.appendChild(who);
    card.appendChild(el("pre", "input", prompt.input_text));
    const edit = el("textarea", "edit");
    edit.value = prompt.input_text;
    edit.hidden = true;
    edit.spellcheck = false;
    edit.setAttribute("aria-label", "edited arguments (JSON)");
    card.appendChild(edit);

    const actions = el("div", "actions");
    const approve = el("button", "approve", "Approve");
    const toggle = el("button", "edit-toggle", "Edit arguments");
    const approveEdited = el("button", "approve-edited", "Approve with edits");
    approveEdited.hidden = true;
    const message = el("input", "message");
    message.type = "text";
    message.placeholder = "Why deny? (the model reads this)";
    message.setAttribute("aria-label", "deny message");
    const deny = el("button", "deny", "Deny");
    [approve, toggle, approveEdited, message, deny].forEach((n) => actions.appendChild(n));
    card.appendChild(actions);
    entry.notice = el("p", "notice");
    entry.notice.setAttribute("role", "status");
    card.appendChild(entry.notice);

    entry.card = card;
    entry.buttons = [approve, toggle, approveEdited, deny];
    approve.addEventListener("click", () => decide(entry, "approve", {}));
    toggle.addEventListener("click", () => {
      edit.hidden = false;
      approveEdited.hidden = false;
      toggle.hidden = true;
      edit.focus();
    });
    approveEdited.addEventListener("click", () => decide(entry, "approve", { input: edit.value }));
    deny.addEventListener("click", () => decide(entry, "deny", { message: message.value }));
    updateExpiry(entry, prompt);
    return entry;
  }

  function updateExpiry(entry, prompt) {
    entry.expires.textContent = prompt.expires_in_ms === null
      ? "never (no console timeout)"
      : "in " + Math.ceil(prompt.expires_in_ms / 1000) + " s";
  }

  function render(body) {
    const now = Date.now();
    const live = new Map(body.pending.map((p) => [p.id, p]));
    for (const [id, entry] of cards) {
      const prompt = live.get(id);
      if (prompt && !entry.decided) {
        updateExpiry(entry, prompt);
      } else if (entry.keepUntil <= now) {
        entry.card.remove();
        cards.delete(id);
      }
    }
    for (const prompt of body.pending) {
      if (!cards.has(prompt.id)) {
        const entry = card(prompt);
        cards.set(prompt.id, entry);
        pendingList.appendChild(entry.card);
      }
    }
    empty.hidden = cards.size > 0;
    // Re-render the settled list only when it changed (a person may be selecting its text).
    const settledKey = JSON.stringify(body.settled.map((s) => [s.id, s.outcome_text]));
    if (settledKey === lastSettled) return;
    lastSettled = settledKey;
    settledList.replaceChildren(...body.settled.map((s) => {
      const item = el("li", "outcome-" + s.outcome);
      item.dataset.id = String(s.id);
      item.appendChild(el("span", "tool", s.tool_name));
      item.appendChild(document.createTextNode(
        (s.tool_use_id ? " (" + s.tool_use_id + ")" : "") + ": " + s.outcome_text));
      return item;
    }));
  }

  async function refresh() {
    try {
      const response = await fetch("/api/prompts", { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) {
        status.textContent = "the console refused: " + (await errorText(response));
        return;
      }
      render(await response.json());
      status.textContent = "";
    } catch (e) {
      status.textContent = "the console is unreachable: " + e.message;
    }
  }

  async function loop() {
    await refresh();
    setTimeout(loop, pollMs);
  }
  loop();
})();
