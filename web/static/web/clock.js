// Every deadline on a page counts down: <time datetime="..." data-deadline>.
// A real-time table's move timer is a ring: <div data-move-timer data-deadline-ms
// data-seconds>, counted against the server's clock. The live part carries the
// server's time when it was rendered (data-now, ms); the difference with this
// browser's clock at the moment the part arrived is the offset, so a browser whose
// clock is wrong still shows the table's time.
(function () {
  "use strict";
  const Gamenook = (window.Gamenook = window.Gamenook || {});

  function left(ms) {
    if (ms <= 0) return "time is up";
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    if (h) return `${h} h ${m} min left`;
    if (m) return `${m} min ${s % 60} s left`;
    return `${s} s left`;
  }

  // The server's clock minus ours, in ms, from the newest live part seen.
  let offset = 0;
  function learnOffset() {
    document.querySelectorAll("[data-now]:not([data-offset])").forEach((el) => {
      const serverNow = Number(el.dataset.now);
      if (!serverNow) return;
      offset = serverNow - Date.now();
      el.dataset.offset = String(offset);
    });
  }

  function serverNow() {
    return Date.now() + offset;
  }

  function tickRings() {
    learnOffset();
    document.querySelectorAll("[data-move-timer]").forEach((el) => {
      const total = Number(el.dataset.seconds) * 1000;
      const ring0 = el.querySelector(".timer-ring");
      // The fraction left when the part was rendered (a data attribute: no inline style
      // under the Content-Security-Policy), until the clock below redraws it.
      if (ring0 && !ring0.style.getPropertyValue("--left") && el.dataset.left) {
        ring0.style.setProperty("--left", el.dataset.left);
      }
      const ms = Math.max(0, Number(el.dataset.deadlineMs) - serverNow());
      const ring = el.querySelector(".timer-ring");
      if (ring) ring.style.setProperty("--left", total ? Math.min(1, ms / total).toFixed(3) : "0");
      const text = ms > 0 ? `${Math.ceil(ms / 1000)} s left` : "time is up";
      const label = el.querySelector(".timer-text");
      if (label && label.textContent !== text) label.textContent = text;
      el.classList.toggle("urgent", ms <= 5000);
    });
  }

  // An instant the page printed in UTC (<time datetime data-local-time>, "12 Dec, 18:00
  // UTC": the end of a seat's autopilot) is shown in the reader's own time instead.
  const localFormat = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  function localTimes() {
    document.querySelectorAll("time[data-local-time]:not([data-localized])").forEach((el) => {
      const instant = new Date(el.getAttribute("datetime"));
      if (Number.isNaN(instant.getTime())) return;
      el.textContent = localFormat.format(instant);
      el.dataset.localized = "";
    });
  }

  function tick() {
    tickRings();
    localTimes();
    document.querySelectorAll("[data-deadline]").forEach((el) => {
      el.textContent = left(new Date(el.getAttribute("datetime")) - serverNow());
    });
  }

  Gamenook.clock = {tick, serverNow};
  tick();
  setInterval(tick, 1000);
  // The ring moves smoothly: four times a second, only while a page has one.
  setInterval(() => {
    if (document.querySelector("[data-move-timer]")) tickRings();
  }, 250);
})();
