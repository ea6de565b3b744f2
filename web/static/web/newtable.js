// The new-table form: only the chosen game's options and the chosen mode's fields are
// shown and sent (a disabled fieldset's fields are not submitted). Without this script
// all show; the server reads the game and the mode and ignores the others' fields.
(function () {
  "use strict";
  const form = document.getElementById("new-table");
  if (!form) return;
  function show(name, attribute) {
    const chosen = form.querySelector(`input[name="${name}"]:checked`)?.value;
    form.querySelectorAll(`fieldset[data-${attribute}]`).forEach((set) => {
      const on = set.dataset[attribute] === chosen;
      set.disabled = !on;
      set.hidden = !on;
    });
  }
  form.addEventListener("change", (event) => {
    if (event.target.name === "mode") show("mode", "mode");
    if (event.target.name === "game") show("game", "game");
  });
  show("mode", "mode");
  show("game", "game");
})();
