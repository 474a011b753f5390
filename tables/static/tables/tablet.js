/* The dealer's tablet: steppers, htmx error swaps, and a banner when the network drops.
   No build step; loaded after htmx (both deferred, in document order). */
(function () {
  "use strict";

  // A refused action (400, 403, 409) comes back as the screen with its message: show it.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "[45]..", swap: true, error: true },
    { code: "...", swap: false },
  ];
  htmx.config.timeout = 10000; // ms; then the dealer is told to tap again (same key: applied once)

  // Steppers: the buttons beside a number input move it by data-step within its min and max.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-step]");
    if (!button) return;
    var input = button.parentElement.querySelector("input[type=number]");
    var step = Number(button.dataset.step);
    var value = (Number(input.value) || 0) + step;
    if (input.min !== "") value = Math.max(value, Number(input.min));
    if (input.max !== "") value = Math.min(value, Number(input.max));
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });

  // A button that names the stepper's value ("Take 3") follows it.
  document.addEventListener("input", function (event) {
    if (!event.target.id) return;
    document.querySelectorAll('[data-echo="' + event.target.id + '"]').forEach(function (echo) {
      echo.textContent = event.target.value;
    });
  });

  // A secret-hand move's cards: each rank key adds one ("?" a card left face down), in the order shown.
  document.addEventListener("click", function (event) {
    var key = event.target.closest("[data-rank], [data-rank-clear]");
    if (!key) return;
    var form = key.closest("form");
    var input = form.querySelector("[data-ranks]");
    var ranks = input.value ? input.value.split(" ") : [];
    if (key.hasAttribute("data-rank-clear")) ranks = [];
    else ranks.push(key.dataset.rank);
    input.value = ranks.join(" ");
    form.querySelector("[data-ranks-shown]").textContent = ranks.length ? ranks.join(" ") : "none";
  });

  function offline(show) {
    document.querySelectorAll(".offline").forEach(function (banner) { banner.hidden = !show; });
  }
  document.addEventListener("htmx:sendError", function () { offline(true); });
  document.addEventListener("htmx:timeout", function () { offline(true); });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.xhr && event.detail.xhr.status) offline(false);
  });
})();
