/* The dealer's tablet: steppers, htmx error swaps, and a banner when the network drops.
   No build step; loaded after htmx (both deferred, in document order). */
(function () {
  "use strict";

  // A refused action (400, 403, 409) comes back as the screen with its message: show it. A server
  // error (the database restarting answers 503, a proxy 502) has no screen to show and recorded
  // nothing: it is taken as no answer (`unanswered`), and the offline keypad keeps the tap.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "4..", swap: true, error: true },
    { code: "...", swap: false, error: true },
  ];

  function unanswered(event) {
    var xhr = event.detail.xhr;
    return !xhr || !xhr.status || xhr.status >= 500;
  }
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
  // does not wait for the screen. From a tap until its answer is drawn (and wired by htmx) the
  // screen is `busy`: a rank tapped then is kept, in order, and sent once the answer is drawn, with
  // the step the new screen shows, so the rules give it to whoever is due, as it was dealt (sent at
  // once, it would carry the old step, be refused, and the rank after it would go to this one's
  // seat). A key tapped twice is two cards of that rank, as on any keypad. Any other tap then is not
  // sent: its button may mean something else by now. Just after an answer is drawn, a tap on the
  // spot just tapped is the second of a double tap and is not sent when it would key a rank where
  // Hit or Confirm was (the card drawn under it), or decide where a rank key was (a card keyed
  // twice, the second landing on the player's Hit). A second decision there is not told apart from
  // the next seat's own, which dealers tap as fast, nor a second rank from the next card; Confirm
  // after the last card is sent: the settlement is the rules' own, whoever reads it. Nor is any tap
  // sent just after a refusal was drawn (its banner moves the keys). The dealer is told of every
  // tap not sent.
  var GUARD_MS = 400, REFUSED_MS = 1000;  // a double tap; the time to read a refusal
  var busy = false, busySince = 0, answered = false, failed = false, ahead = [], replaying = false;
  var lastKind = null, drawnAt = 0, tapAt = null, sentAt = null;

  document.addEventListener("click", function (event) {
    tapAt = { x: event.clientX, y: event.clientY };
    if (event.target.id === "ahead-refused") notice("");  // read: tapped away
  }, true);

  function rankOf(form) {
    var rank = form.closest(".keypad") && form.querySelector("input[name=rank]");
    return rank ? rank.value : null;
  }

  function wired(form) {  // htmx has set the form up: a submit now goes through htmx, not the browser
    var data = form["htmx-internal-data"];
    return Boolean(data && data.initHash);
  }

  function notice(sentence) {
    var banner = document.getElementById("ahead-refused");
    if (!banner && sentence) {
      banner = document.createElement("p");
      banner.id = "ahead-refused";
      banner.className = "banner error floating";  // over the screen: it moves no key (tablet.css)
      banner.setAttribute("role", "alert");
      document.querySelector("#hand, #table, #refused").before(banner);  // beside the screen: the poll redraws it
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

  function doubleTap(kind) {
    var near = tapAt && sentAt && Math.abs(tapAt.x - sentAt.x) < 24 && Math.abs(tapAt.y - sentAt.y) < 24;
    var since = Date.now() - drawnAt, just = since < GUARD_MS;
    if (failed && since < REFUSED_MS) return "tapped as a refusal was drawn";
    var crossed = kind === "rank" ? lastKind !== "rank" : kind === "decision" && lastKind === "rank";
    if (just && near && crossed) return "a second tap on the same spot";
    return null;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.closest("#hand") || form.closest(".offline-keypad") || form.method !== "post") return;
    var rank = rankOf(form), kind = rank !== null ? "rank" : form.closest(".decisions") ? "decision" : "other";
    if (busy && Date.now() - busySince > htmx.config.timeout + 1000) busy = false;  // never answered
    var why = replaying ? null : busy || !wired(form) || ahead.length ? "changing" : doubleTap(kind);
    if (why) {
      event.preventDefault();
      event.stopImmediatePropagation();
      if (why === "changing" && rank !== null) {
        ahead.push(rank);
        if (!busy) setTimeout(drain, 50);  // a screen drawn but not wired yet: it will be in a moment
      } else {
        notice("Not sent: " + (why === "changing" ? "a tap while the screen was changing" : why) +
               ". Tap again if you meant it.");
      }
      return;
    }
    busy = true;
    busySince = Date.now();
    answered = failed = false;
    lastKind = kind;
    sentAt = replaying ? null : tapAt;
    notice("");
  }, true);

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!busy || answered || event.detail.requestConfig.verb !== "post") return;
    if (unanswered(event)) {  // no answer: the offline keypad takes over
      busy = false;
      dropAhead("because the server did not answer");
      return;
    }
    answered = true;
    failed = !event.detail.successful;
    setTimeout(settled, 300);  // in case its screen was drawn where no settle event reaches us
  });

  function settled() {
    if (!busy || !answered) return;
    busy = false;
    drawnAt = Date.now();
    drain();
  }

  function drain() {
    if (busy || !ahead.length) return;
    if (failed) return dropAhead("because the tap before them was refused");
    var key = document.querySelector('#hand .keypad input[name=rank][value="' + ahead[0] + '"]');
    if (!key) return dropAhead("because the hand no longer waits for a card");
    if (!wired(key.form)) return setTimeout(drain, 30);
    ahead.shift();
    replaying = true;
    try { key.form.requestSubmit(); } finally { replaying = false; }
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.target.id !== "hand") return;
    if (busy) settled(); else drain();
  });

  // The table's poll redraws it when anything changed there (another tablet, the pit, the API). The
  // dealer may be filling in a form on it (seating a player, a buy-in, a bet typed or stepped, a
  // reason): the redraw keeps it. Holding the redraw instead kept an abandoned form's screen from
  // following the table until the dealer's next tap. What was typed, the fold-outs open and the
  // field being typed in (with its caret) are carried onto the fresh screen, field by field, by the
  // form they belong to (its address and seat) and the player seated where they lie (`occupant`). A
  // field whose form is no longer there (the seat was taken elsewhere, the hand was started), or
  // whose player left and another sat down there, cannot be kept, and the dealer is told what was
  // dropped.
  // The answer to a form sent from the table is drawn the same way: a dealer seats one player and is
  // typing at the next seat before it comes. Only the sent form is the answer's own (cleared once
  // done; a refusal draws it with what was typed, `with_typed`), with every form of its address and
  // seat: "Same bets" answers for the bets too.
  var carried = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var screen = event.detail.target, request = event.detail.requestConfig;
    if (!screen || screen.id !== "table") return;
    var sent = request.verb === "get" ? null : request.elt.closest("form");
    carried = event.detail.shouldSwap ? typedOn(screen, sent && formKey(sent)) : null;
  });

  document.addEventListener("htmx:afterSwap", function () {
    var screen = document.getElementById("table");
    if (!carried || !screen) return;
    var typed = carried;
    carried = null;
    carryOnto(screen, typed);
  });

  function formKey(form) {
    var seat = form && form.querySelector("input[type=hidden][name=seat]");
    return (form ? form.getAttribute("action") : "") + "|" + (seat ? seat.value : "") + "|";
  }

  // The seat session of the seat an element lies at ("" off the seats, or at an empty seat). A bet
  // belongs to the hand's form, whatever its seat's player: typed for one player, it must not be
  // staked for the next one seated there; nor a Cash out left open pay out someone else.
  function occupant(element) {
    var seat = element.closest("[data-session]");
    return seat ? seat.dataset.session : "";
  }

  function fieldKey(field) {
    return formKey(field.form) + occupant(field) + "|" + field.name + "|" +
      (field.type === "radio" ? field.value : "");
  }

  // A fold-out by the form it holds (or lies in), and its seat's player.
  function foldKey(details) {
    var form = details.querySelector("form") || details.closest("form");
    return formKey(form) + occupant(details) + "|" + details.querySelector("summary").textContent.trim();
  }

  function typedOn(screen, sent) {
    var focused = document.activeElement, typed = { fields: [], open: [], focus: null };
    function answered(key) { return sent && key.indexOf(sent) === 0; }
    screen.querySelectorAll("input:not([type=hidden]), textarea").forEach(function (field) {
      if (answered(fieldKey(field))) return;
      var check = field.type === "radio" || field.type === "checkbox";
      if (check ? field.checked !== field.defaultChecked : field.value !== field.defaultValue) {
        typed.fields.push({ key: fieldKey(field), value: field.value, checked: field.checked, label: labelOf(field) });
      }
    });
    screen.querySelectorAll("details[open]").forEach(function (details) {
      if (!answered(foldKey(details))) typed.open.push(foldKey(details));
    });
    if (focused && screen.contains(focused) && focused.name && !answered(fieldKey(focused))) {
      typed.focus = { key: fieldKey(focused), caret: caret(focused) };
    }
    return typed;
  }

  function caret(field) {
    try { return [field.selectionStart, field.selectionEnd]; } catch (e) { return null; }  // a number has none
  }

  function labelOf(field) {
    if (field.getAttribute("aria-label")) return field.getAttribute("aria-label");
    var region = field.closest("[aria-label]"), label = field.labels && field.labels[0];
    return (region ? region.getAttribute("aria-label") + " " : "") +
      (label ? label.textContent.trim().toLowerCase() : field.name);
  }

  function carryOnto(screen, typed) {
    var fields = {};
    screen.querySelectorAll("input:not([type=hidden]), textarea").forEach(function (field) {
      fields[fieldKey(field)] = field;
    });
    screen.querySelectorAll("details").forEach(function (details) {
      if (typed.open.indexOf(foldKey(details)) >= 0) details.open = true;
    });
    var dropped = typed.fields.filter(function (was) {
      var field = fields[was.key];
      if (!field) return true;
      if (field.type === "radio" || field.type === "checkbox") field.checked = was.checked;
      else field.value = was.value;
      var fold = field.closest("details");
      for (; fold; fold = fold.parentElement.closest("details")) fold.open = true;
      return false;
    });
    var focus = typed.focus && fields[typed.focus.key];
    if (focus) {
      focus.focus({ preventScroll: true });
      if (typed.focus.caret) try { focus.setSelectionRange(typed.focus.caret[0], typed.focus.caret[1]); } catch (e) {}
    }
    var lost = dropped.map(function (was) { return was.label + " " + was.value; });
    if (lost.length) {
      notice("Not kept: " + lost.join(", ") + ". The table changed and that form is gone: type " +
             "it again if it still applies.");
    }
  }

  function offline(show) {
    document.querySelectorAll(".offline").forEach(function (banner) { banner.hidden = !show; });
  }
  document.addEventListener("htmx:sendError", function () { offline(true); });
  document.addEventListener("htmx:timeout", function () { offline(true); });
  document.addEventListener("htmx:afterRequest", function (event) {
    offline(unanswered(event));
  });
})();
