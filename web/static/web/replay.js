// The replay: step forward and back without reloading; arrow keys step too.
(function () {
  "use strict";
  const root = document.getElementById("replay");
  if (!root) return;
  const announcer = document.getElementById("announcer");

  async function go(step, keepKey) {
    const url = `${root.dataset.replayUrl}?step=${step}`;
    const response = await fetch(url, {headers: {"X-Gamenook-Live": "1"}, credentials: "same-origin"});
    if (!response.ok) return;
    root.innerHTML = await response.text();
    history.replaceState(null, "", url);
    const sentence = root.querySelector("[data-sentence]");
    if (sentence) announcer.textContent = sentence.textContent.trim();
    const target = (keepKey && root.querySelector(`[data-key="${keepKey}"]`)) || root.querySelector("[data-key]");
    if (target) target.focus();
  }

  root.addEventListener("click", (event) => {
    const link = event.target.closest("[data-step-link]");
    if (!link) return;
    event.preventDefault();
    go(link.dataset.stepLink, link.dataset.key);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.matches("input, select, textarea")) return;
    const key = event.key === "ArrowRight" ? "forward" : event.key === "ArrowLeft" ? "back" : null;
    const link = key && root.querySelector(`[data-key="${key}"]`);
    if (link) {
      event.preventDefault();
      go(link.dataset.stepLink, key);
    }
  });
})();
