// The table page: moves without reloading, the live part kept fresh, focus kept
// where the player left it, new moves read out, the deadline counting down.
(function () {
  "use strict";
  const root = document.getElementById("live");
  if (!root) return;
  const notice = document.getElementById("notice");
  const announcer = document.getElementById("announcer");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  let busy = false;
  // The version the page shows: a poll answered with it again (one that was on its way
  // while our own move was sent) changes nothing, so the DOM is left alone.
  let shown = root.dataset.etag || "";

  function lastMove(scope) {
    let last = 0;
    scope.querySelectorAll("[data-move]").forEach((el) => {
      last = Math.max(last, Number(el.dataset.move));
    });
    return last;
  }

  function showNotice(text) {
    if (!text) {
      notice.hidden = true;
      notice.textContent = "";
      return;
    }
    notice.textContent = text;
    notice.hidden = false;
  }

  function seqOf(element) {
    return Number(element?.dataset.seq ?? -1);
  }

  // Replace the live part, keeping focus and open disclosures, and read out new moves.
  // A poll answered before one of our own moves committed can arrive after it: an
  // older table than the one shown is ignored (returns false).
  function swap(html) {
    const incoming = document.createElement("template");
    incoming.innerHTML = html;
    if (seqOf(incoming.content.firstElementChild) < seqOf(root.firstElementChild)) return false;
    const active = document.activeElement;
    const hadFocus = active && root.contains(active);
    const key = hadFocus ? active.closest("[data-key]")?.dataset.key : null;
    const open = new Set();
    root.querySelectorAll("details[open][data-key]").forEach((d) => open.add(d.dataset.key));
    const before = lastMove(root);
    const seqBefore = root.firstElementChild?.dataset.seq;
    root.innerHTML = html;
    root.querySelectorAll("details[data-key]").forEach((d) => {
      if (open.has(d.dataset.key)) d.open = true;
    });
    const fresh = [];
    root.querySelectorAll("[data-move]").forEach((el) => {
      if (Number(el.dataset.move) > before) fresh.push(el.textContent.trim());
    });
    if (fresh.length && seqBefore !== undefined) announcer.textContent = fresh.join(" ");
    tick();
    if (hadFocus) {
      const target =
        (key && root.querySelector(`[data-key="${CSS.escape(key)}"]`)) ||
        root.querySelector(".card-button.playable") ||
        root.querySelector("#hand-h") ||
        root;
      if (target.id === "hand-h") target.tabIndex = -1;
      target.focus();
    }
    return true;
  }

  // Real-time tables carry data-socket-url and are pushed to; the others poll.
  const status = document.getElementById("live-status");
  const live = Gamenook.live.connect({
    url: root.dataset.liveUrl,
    etag: root.dataset.etag,
    transport: root.dataset.socketUrl ? "socket" : "poll",
    socketUrl: root.dataset.socketUrl,
    // The socket dropped: say so until it is back (it reconnects by itself).
    onState: (state) => {
      if (status) status.hidden = state !== "reconnecting";
    },
    onUpdate: (html, etag) => {
      // While our own move is on its way its answer is the news: a poll that lands
      // first would let the player act on a page the answer is about to replace.
      if (busy) return false;
      if (etag && etag === shown) return true;
      const accepted = swap(html); // false: older than the page, so the ETag is not kept
      if (accepted) shown = etag;
      return accepted;
    },
  });

  // For the page's other scripts (the move timer, the strikes): the live connection.
  Gamenook.table = {live};

  // Every form in the live part is sent in the background; the answer carries the new fragment.
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-live") || !root.contains(form)) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    root.setAttribute("aria-busy", "true");
    const body = new FormData(form);
    if (event.submitter && event.submitter.name) body.append(event.submitter.name, event.submitter.value);
    const headers = {"X-CSRFToken": csrf, "X-Gamenook-Live": "1", Accept: "application/json"};
    // Our socket, if open: the answer brings the new view, so it need not be pushed too.
    if (live.socketId) headers["X-Gamenook-Socket"] = live.socketId;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers,
      });
      const data = await response.json();
      if (data.redirect) {
        window.location.assign(data.redirect);
        return;
      }
      showNotice(data.error ? data.error.detail : "");
      if (data.html) {
        swap(data.html);
        shown = data.etag || "";
        live.known(data.etag);
      }
    } catch (error) {
      showNotice("The move could not be sent. Check your connection and try again.");
      live.refresh();
    } finally {
      busy = false;
      root.removeAttribute("aria-busy");
    }
  });

  // Opening a Wild's colour picker moves focus to its first colour; only one is open at a time.
  root.addEventListener("toggle", (event) => {
    const details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.classList.contains("wild-pick")) return;
    if (details.open) {
      root.querySelectorAll("details.wild-pick[open]").forEach((d) => {
        if (d !== details) d.open = false;
      });
      details.querySelector(".picker button")?.focus();
    }
  }, true);

  // Escape closes an open colour picker and returns to its card.
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const details = event.target.closest?.("details.wild-pick[open]");
    if (details) {
      details.open = false;
      details.querySelector("summary").focus();
    }
  });

  function tick() {
    Gamenook.clock?.tick();
  }
})();
