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
    var input = form && form.querySelector("[data-ranks]");
    if (!input) return;  // the offline keypad's ranks (offline.js), not a secret-hand move's
    var ranks = input.value ? input.value.split(" ") : [];
    if (key.hasAttribute("data-rank-clear")) ranks = [];
    else ranks.push(key.dataset.rank);
    input.value = ranks.join(" ");
    form.querySelector("[data-ranks-shown]").textContent = ranks.length ? ranks.join(" ") : "none";
  });

  // Keying ahead (docs/tablet.md, section 4). A dealer keys the cards as they leave the shoe and
  // does not wait for the screen. A rank tapped while the hand's last tap is on its way is kept, in
  // order, and sent once that answer is drawn, with the step the new screen shows: the rules then
  // give it to whoever is due, as it was dealt. Sent at once instead, it would carry the old step,
  // be refused, and the rank after it would go to the seat this one was for. Any other tap while
  // one is on its way is not sent (its button may mean something else by now); nor is a rank
  // tapped just after the screen was redrawn on the spot of the last tap, a decision's (`ghost`).
  var GUARD_MS = 400;
  var waiting = false, waitedFrom = 0, settling = false, failed = false, ahead = [], lastKind = null, drawnAt = 0;
  var replaying = false;  // a kept rank being sent: its submit event is trusted too
  var tapAt = null, sentAt = null;  // where the latest tap fell, and the tap last sent

  document.addEventListener("click", function (event) { tapAt = { x: event.clientX, y: event.clientY }; }, true);

  // The second tap of a double tap on a decision or a confirmation, landing on the keypad drawn in
  // its place: on the spot of the last tap sent, just after its answer was drawn (a deliberate card
  // on a new screen falls elsewhere, or later). A card keyed by accident needs the pit to undo.
  function ghost(kind) {
    var near = tapAt && sentAt && Math.abs(tapAt.x - sentAt.x) < 24 && Math.abs(tapAt.y - sentAt.y) < 24;
    return near && kind === "rank" && lastKind === "other" && Date.now() - drawnAt < GUARD_MS;
  }

  function rankOf(form) {
    var rank = form.closest(".keypad") && form.querySelector("input[name=rank]");
    return rank ? rank.value : null;
  }

  function notice(sentence) {
    var banner = document.getElementById("ahead-refused");
    if (!banner && sentence) {
      banner = document.createElement("p");
      banner.id = "ahead-refused";
      banner.className = "banner error";
      banner.setAttribute("role", "alert");
      document.getElementById("hand").before(banner);  // beside the screen: the poll redraws it
    }
    if (banner) banner.textContent = sentence;
    if (banner) banner.hidden = !sentence;
  }

  function dropAhead(why) {
    if (!ahead.length) return;
    notice("Not recorded: the " + ahead.join(", the ") + " keyed ahead, " + why +
           ". Key each again when the screen asks for it.");
    ahead = [];
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.closest("#hand") || form.closest(".offline-keypad") || form.method !== "post") return;
    var rank = rankOf(form), kind = rank === null ? "other" : "rank";
    if (waiting && Date.now() - waitedFrom > htmx.config.timeout + 1000) waiting = false;  // never answered
    var behind = ahead.length && !replaying;  // the dealer's tap waits behind the ones kept before it
    if (waiting || behind || (!replaying && ghost(kind))) {
      if ((waiting || behind) && rank !== null) ahead.push(rank);
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    waiting = true;
    waitedFrom = Date.now();
    lastKind = kind;
    sentAt = replaying ? null : tapAt;
    notice("");
  }, true);

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!waiting || event.detail.requestConfig.verb !== "post") return;
    waiting = false;
    failed = !event.detail.successful;
    settling = Boolean(event.detail.xhr && event.detail.xhr.status);  // its answer is being drawn
    if (!settling) dropAhead("because the server did not answer");
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.target.id !== "hand") return;
    if (settling) drawnAt = Date.now();  // the answer to the dealer's own tap, not a poll's redraw
    settling = false;
    if (waiting || !ahead.length) return;
    if (failed) return dropAhead("because the tap before them was refused");
    var key = document.querySelector('#hand .keypad input[name=rank][value="' + ahead[0] + '"]');
    if (!key) return dropAhead("because the hand no longer waits for a card");
    ahead.shift();
    replaying = true;
    try { key.form.requestSubmit(); } finally { replaying = false; }
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
