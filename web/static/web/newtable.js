// The new-table form: only the chosen mode's fields are shown and sent (a disabled
// fieldset's fields are not submitted). Without this script both show; the server
// reads the mode and ignores the other one's fields.
(function () {
  "use strict";
  const form = document.getElementById("new-table");
  if (!form) return;
  function show() {
    const chosen = form.querySelector('input[name="mode"]:checked')?.value;
    form.querySelectorAll("fieldset[data-mode]").forEach((set) => {
      const on = set.dataset.mode === chosen;
      set.disabled = !on;
      set.hidden = !on;
    });
  }
  form.addEventListener("change", (event) => {
    if (event.target.name === "mode") show();
  });
  show();
})();
