// The table page: moves without reloading, the live part kept fresh, focus kept
// where the player left it, new moves read out, the deadline counting down.
(function () {
  "use strict";
  const root = document.getElementById("live");
  if (!root) return;
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

  // A refused move is answered next to the hand, in the live part's alert region
  // ([data-notice]); the next action clears it. The region is the same element across
  // swaps, so a screen reader keeps hearing it.
  function showNotice(text) {
    const notice = root.querySelector("[data-notice]");
    if (notice) notice.textContent = text || "";
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
    const notice = root.querySelector("[data-notice]");
    root.innerHTML = html;
    const slot = root.querySelector("[data-notice]");
    if (notice && slot) {
      notice.textContent = slot.textContent || notice.textContent;
      slot.replaceWith(notice);
    }
    root.querySelectorAll("details[data-key]").forEach((d) => {
      if (open.has(d.dataset.key)) d.open = true;
    });
    const fresh = [];
    root.querySelectorAll("[data-move]").forEach((el) => {
      if (Number(el.dataset.move) > before) fresh.push(el.textContent.trim());
    });
    if (fresh.length && seqBefore !== undefined) announcer.textContent = fresh.join(" ");
    tick();
    setUpHand(key);
    watchDock();
    // A card drawn that must be played now takes the focus (the page marks it).
    const drawn = root.querySelector("[data-autofocus]");
    if (drawn && (hadFocus || !document.activeElement || document.activeElement === document.body)) {
      drawn.focus();
      return true;
    }
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

  // Every table page carries data-socket-url and is pushed to over it; the transport
  // polls while the socket cannot connect (live.js). Without it, the page polls.
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
      if (accepted) awaitRatings();
      return accepted;
    },
  });

  // For the page's other scripts (the move timer, the strikes): the live connection.
  Gamenook.table = {live};

  // A game just over is rated by its follow-up, after its last move: nothing is pushed
  // then, so while the page says "Ratings are being updated" it asks again, a little
  // later each time (the live part's ETag changes once the ratings are there).
  let ratingsTimer = null;
  let ratingsAsked = 0;
  function awaitRatings() {
    clearTimeout(ratingsTimer);
    if (!root.querySelector("[data-ratings-pending]") || ratingsAsked >= 12) return;
    ratingsTimer = setTimeout(() => {
      ratingsAsked += 1;
      live.refresh();
      awaitRatings();
    }, 2000 + 1000 * ratingsAsked);
  }
  awaitRatings();

  // Every form in the live part is sent in the background; the answer carries the new fragment.
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-live") || !root.contains(form)) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    showNotice("");
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
        awaitRatings();
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
      showNotice("");
      root.querySelectorAll("details.wild-pick[open]").forEach((d) => {
        if (d !== details) d.open = false;
      });
      // The dock is fixed on a phone: focusing inside it must not scroll the page under it.
      details.querySelector(".picker button")?.focus({preventScroll: true});
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

  // The hand is one stop in the Tab order (a roving tabindex): the arrow keys, Home and
  // End move from card to card, so Draw is one Tab away from any card.
  function handCards() {
    return Array.from(root.querySelectorAll("[data-zone=hand] .card-button"));
  }

  function setUpHand(key) {
    const cards = handCards();
    if (!cards.length) return;
    const current =
      (key && cards.find((c) => c.dataset.key === key)) ||
      cards.find((c) => c.hasAttribute("data-autofocus")) ||
      cards.find((c) => c.classList.contains("playable")) ||
      cards[0];
    cards.forEach((c) => {
      c.tabIndex = c === current ? 0 : -1;
    });
  }

  function moveInHand(card, where) {
    const cards = handCards();
    const at = cards.indexOf(card);
    if (at < 0) return;
    const next =
      where === "first" ? 0 : where === "last" ? cards.length - 1 : Math.min(cards.length - 1, Math.max(0, at + where));
    cards.forEach((c, i) => {
      c.tabIndex = i === next ? 0 : -1;
    });
    cards[next].focus();
  }

  const MOVES = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last"};

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.matches?.("input, select, textarea")) return;
    const card = target.closest?.("[data-zone=hand] .card-button");
    if (card && event.key in MOVES) {
      event.preventDefault();
      moveInHand(card, MOVES[event.key]);
      return;
    }
    const inHand = target.closest?.(".my-hand");
    if (inHand && (event.key === "d" || event.key === "p")) {
      const button = root.querySelector(event.key === "d" ? "[data-draw]" : "[data-pass]");
      if (button) {
        event.preventDefault();
        button.focus();
        button.click();
      }
      return;
    }
    // "n": to the next table where it is the player's turn, when the page offers one
    // (the link is part of the live part, so it follows every update).
    if (event.key === "n" && !target.isContentEditable) {
      const next = root.querySelector("[data-next-table]");
      if (next) {
        event.preventDefault();
        window.location.assign(next.href);
      }
      return;
    }
    // "h": to the hand, from anywhere on the table that is not a field.
    if (event.key === "h" && (root.contains(target) || target === document.body)) {
      const first = handCards().find((c) => c.tabIndex === 0);
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
  });

  // On a phone the hand and its actions are docked at the bottom (gamenook.css); the page
  // keeps room for them below its last line, so nothing stays under the dock.
  let observer = null;
  function watchDock() {
    const dock = root.querySelector("[data-dock]");
    const html = document.documentElement;
    if (observer) observer.disconnect();
    if (!dock || !window.ResizeObserver) {
      html.style.removeProperty("--dock-h");
      return;
    }
    observer = new ResizeObserver(() => {
      html.style.setProperty("--dock-h", `${Math.ceil(dock.getBoundingClientRect().height)}px`);
    });
    observer.observe(dock);
  }

  setUpHand(null);
  watchDock();

  function tick() {
    Gamenook.clock?.tick();
  }
})();
