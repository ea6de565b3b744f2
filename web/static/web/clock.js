// Every deadline on a page counts down: <time datetime="..." data-deadline>.
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

  function tick() {
    document.querySelectorAll("[data-deadline]").forEach((el) => {
      el.textContent = left(new Date(el.getAttribute("datetime")) - Date.now());
    });
  }

  Gamenook.clock = {tick};
  tick();
  setInterval(tick, 1000);
})();
