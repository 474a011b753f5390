/* The tablet when the network fails (docs/tablet.md "When the network fails").

   A request that cannot reach the server switches the hand screen to the offline keypad. The dealer
   names who gets each card (or decides) and taps the rank (or the decision); every step is kept in
   localStorage under the table and the hand, with an idempotency key made when it was tapped and the
   step number it expects (the last one the server showed plus its place in the queue), so a reload
   or a flat battery loses nothing. A tap whose request failed goes first, with its own key: if the
   server did record it, sending it again is answered as the first and writes nothing.
   While steps wait, the tablet asks the health check every few seconds (and at once on the browser's
   `online` event); when the server answers, the queue is sent in order to the hand's queue address,
   which applies each step once through the hand services, or refuses the first illegal one (that
   step and the rest are held for the pit) with a sentence shown here. The server decides: the
   receiver this keypad preselects is only a guess by rotation. */
(function () {
  "use strict";

  var RETRY_MS = 3000; // how often a tablet holding steps asks whether the server answers again
  var sending = false;

  // The keypad on the screen, if it is shown.
  function panel() { return document.querySelector("#hand .offline-keypad"); }

  // The hand's keypad, shown or not: its data name the hand, the table and the step the screen shows.
  function source() {
    var template = document.getElementById("offline-keypad");
    return panel() || (template && template.content.querySelector(".offline-keypad"));
  }

  // The keypad put on the screen from its template (kept inert until then: it is no control of the
  // online screen).
  function show() {
    var template = document.getElementById("offline-keypad");
    if (!panel() && template) template.after(template.content.cloneNode(true));
    return panel();
  }

  function storeKey(p) { return "tablet-offline:table-" + p.dataset.table + ":hand-" + p.dataset.hand; }

  function load(p) {
    try { return JSON.parse(localStorage.getItem(storeKey(p))); } catch (error) { return null; }
  }

  function save(p, queue) { localStorage.setItem(storeKey(p), JSON.stringify(queue)); }

  // crypto.randomUUID needs a secure context; the floor may serve plain HTTP, getRandomValues does not care.
  function newKey() {
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function number(text) { return text === "" || text === undefined ? null : Number(text); }

  // Who the server's screen says is due: a card's receiver, or the seat to act.
  function dueNow(p) {
    if (p.dataset.nextKind === "card") return { to: p.dataset.nextTo, seat: number(p.dataset.nextSeat) };
    return { to: "seat", seat: number(p.dataset.turn) };
  }

  function receivers(p) {
    return Array.prototype.map.call(p.querySelectorAll(".offline-who [data-to]"), function (button) {
      return { to: button.dataset.to, seat: number(button.dataset.seat) };
    });
  }

  function same(a, b) { return a && b && a.to === b.to && a.seat === b.seat; }

  // The next receiver going round the table (seats in order, then the dealer where there is one).
  function nextAfter(p, who, seatsOnly) {
    var all = receivers(p).filter(function (r) { return !seatsOnly || r.to === "seat"; });
    var at = all.findIndex(function (r) { return same(r, who); });
    return all[(at + 1) % all.length];
  }

  function start(p) {
    var queue = load(p);
    if (queue) return queue;
    queue = { table: Number(p.dataset.table), hand: Number(p.dataset.hand), seq: Number(p.dataset.seq),
              who: dueNow(p), steps: [] };
    save(p, queue);
    return queue;
  }

  function add(p, step) {
    var queue = start(p);
    delete queue.stuck; // the dealer changed the queue: send it again
    step.key = step.key || newKey();
    if (step.seq === undefined) step.seq = queue.seq + queue.steps.length;
    queue.steps.push(step);
    queue.who = after(p, step, queue);
    save(p, queue);
    draw(p);
  }

  // The receiver the keypad offers next: the seat that hit gets the card, the seat that took k cards
  // all k of them (Blackstone: a black stone ends the take); otherwise round the table.
  function after(p, step, queue) {
    if (step.kind === "decision") {
      queue.owed = step.action[0] === "take" ? step.action[1] || 1 : 0;
      if (["hit", "take", "eight"].indexOf(step.action[0]) >= 0) return { to: "seat", seat: step.seat };
      return nextAfter(p, { to: "seat", seat: step.seat }, false);
    }
    var owed = queue.owed || 0;
    queue.owed = step.rank === 10 ? 0 : Math.max(owed - 1, 0);
    if (queue.owed && step.to === "seat") return { to: "seat", seat: step.seat };
    if (p.dataset.cardsTo) return nextAfter(p, queue.who, true);
    return nextAfter(p, { to: step.to, seat: step.seat }, false);
  }

  function says(step) {
    if (step.kind === "card") {
      return "the " + step.rank + " to " + (step.to === "seat" ? "seat " + step.seat : "the " + step.to);
    }
    return "seat " + step.seat + ": " + step.action.join(" ");
  }

  function draw(p) {
    var queue = load(p);
    if (!queue) return;
    p.hidden = false;
    document.getElementById("hand").classList.add("is-offline");
    p.querySelectorAll(".offline-who [data-to]").forEach(function (button) {
      var who = { to: button.dataset.to, seat: number(button.dataset.seat) };
      button.setAttribute("aria-pressed", same(who, queue.who) ? "true" : "false");
    });
    var list = p.querySelector(".offline-queue");
    list.replaceChildren.apply(list, queue.steps.map(function (step) {
      var item = document.createElement("li");
      item.textContent = says(step);
      return item;
    }));
    p.querySelector(".offline-undo").hidden = !queue.steps.length;
    if (queue.stuck) status(p, queue.stuck);
  }

  function status(p, text) { p.querySelector(".offline-status").textContent = text; }

  // A tap on the online screen whose request failed: queued first, with the key it was sent with.
  function failedTap(p, form) {
    if (!form || form.tagName !== "FORM" || !/\/(card|decide)\/$/.test(form.getAttribute("hx-post") || "")) return;
    var data = new FormData(form);
    var step = { key: data.get("key"), seq: Number(data.get("seq")) };
    if (start(p).steps.some(function (queued) { return queued.key === step.key; })) return; // told twice
    if (/card\/$/.test(form.getAttribute("hx-post"))) {
      var due = dueNow(p);
      var rank = number(data.get("rank") || p.dataset.nextPlace); // a system shoe: the card it showed
      if (rank === null) return;
      add(p, Object.assign(step, { kind: "card", rank: rank, to: due.to, seat: due.seat }));
    } else {
      var action = [data.get("move")];
      if (data.get("count")) action.push(Number(data.get("count")));
      if (data.get("card_seat")) action.push(Number(data.get("card_seat")), Number(data.get("card_rank")));
      add(p, Object.assign(step, { kind: "decision", seat: number(p.dataset.turn), action: action }));
    }
  }

  function goOffline(event) {
    if (!source() || !source().dataset.keypad) return;  // nothing to key offline on this hand
    var p = show();
    if (!p) return;
    start(p);
    failedTap(p, event.detail.elt);
    draw(p);
  }

  function tapped(event) {
    var p = panel();
    if (!p || !p.contains(event.target)) return;
    var button = event.target.closest("button");
    if (!button) return;
    var queue = start(p);
    if (button.dataset.to) {
      queue.who = { to: button.dataset.to, seat: number(button.dataset.seat) };
      save(p, queue);
    } else if (button.dataset.rank) {
      var to = p.dataset.cardsTo ? { to: p.dataset.cardsTo, seat: null } : queue.who;
      add(p, { kind: "card", rank: Number(button.dataset.rank), to: to.to, seat: to.seat });
    } else if (button.dataset.move) {
      if (queue.who.to !== "seat") { status(p, "Tap the seat that decides first."); return; }
      var action = [button.dataset.move];
      if (button.dataset.move === "take") action.push(Number(p.querySelector(".offline-take").value));
      add(p, { kind: "decision", seat: queue.who.seat, action: action });
    } else if (button.classList.contains("offline-undo")) {
      queue.steps.pop();
      delete queue.stuck;
      save(p, queue);
    }
    status(p, "");
    draw(p);
  }

  function refused(p, sentence) {
    var banner = document.createElement("div");
    banner.className = "banner error";
    banner.setAttribute("role", "alert");
    banner.textContent = sentence + " The steps from there on wait for the pit. ";
    var refresh = document.createElement("a");
    refresh.className = "button";
    refresh.href = location.pathname;
    refresh.textContent = "Refresh";
    banner.appendChild(refresh);
    // Beside the hand screen, not in it: the screen's poll redraws it as soon as the steps sent
    // before the refused one move the hand on, and the dealer must still read why the rest wait.
    var hand = document.getElementById("hand");
    hand.before(banner);
    p.remove();
    hand.classList.remove("is-offline");
  }

  function post(p, queue) {
    var body = new FormData();
    body.append("steps", JSON.stringify(queue.steps));
    var token = p.querySelector("[name=csrfmiddlewaretoken]").value;
    return fetch(p.dataset.queueUrl, { method: "POST", body: body, headers: { "X-CSRFToken": token },
                                       credentials: "same-origin" });
  }

  // Any answer from the health check means the server is reachable again (a 503 too: the queue's
  // own answer then says whether it was recorded).
  function trySend() {
    var p = source();
    var queue = p && load(p);
    if (!queue || queue.stuck || sending) return;
    p = show();
    sending = true;
    fetch(p.dataset.healthUrl, { cache: "no-store" }).then(function () {
      if (!queue.steps.length) { localStorage.removeItem(storeKey(p)); location.reload(); return null; }
      status(p, "The server answers: sending " + queue.steps.length + " steps…");
      return post(p, queue).then(function (response) {
        // Sent to the sign-in page (the session ended while the network was down): nothing was
        // recorded. The steps stay; signing in opens this hand again, which sends them.
        if (response.redirected) { location.reload(); return null; }
        var read = response.json().catch(function () { return {}; }); // a refusal page is not JSON
        return read.then(function (answer) { answered(p, response.status, answer, queue.steps); });
      });
    }).catch(function () {
      status(p, "Still no answer from the server: the steps stay on this tablet.");
    }).finally(function () { sending = false; });
  }

  function answered(p, code, answer, sent) {
    var later = unsent(p, sent);
    if (code === 200 && later.length) renumber(p, later, answer.seq); // sent at the next try
    else if (code === 200) { localStorage.removeItem(storeKey(p)); location.reload(); }
    else if (code === 409) {
      localStorage.removeItem(storeKey(p)); // recorded up to the refused step; it and the rest held for the pit
      refused(p, answer.refused + (later.length ? " " + later.length + " steps keyed since were not sent." : ""));
    } else if (code >= 500) {  // the database restarting (503, "nothing was done"): send them again
      status(p, "The server could not record the steps yet: they stay on this tablet and are sent again.");
    } else stuck(p, (answer.refused || "The server refused the steps.") + " They stay on this tablet: call the pit.");
  }

  // Steps tapped while the queue was on its way: never sent, so never applied.
  function unsent(p, sent) {
    var keys = sent.map(function (step) { return step.key; });
    return (load(p) || { steps: [] }).steps.filter(function (step) { return keys.indexOf(step.key) < 0; });
  }

  // They follow the hand as the server left it: from its step number on.
  function renumber(p, steps, seq) {
    var queue = load(p);
    queue.seq = seq;
    queue.steps = steps.map(function (step, place) { return Object.assign(step, { seq: seq + place }); });
    save(p, queue);
    draw(p);
  }

  // Refused whole (malformed, or not this dealer's table): sending it again would be refused again.
  function stuck(p, sentence) {
    var queue = load(p);
    queue.stuck = sentence;
    save(p, queue);
    status(p, sentence);
  }

  document.addEventListener("htmx:sendError", goOffline);
  document.addEventListener("htmx:timeout", goOffline);
  document.addEventListener("htmx:afterRequest", function (event) {  // a 5xx recorded nothing (tablet.js)
    if (event.detail.xhr && event.detail.xhr.status >= 500) goOffline(event);
  });
  document.addEventListener("click", tapped);
  // The hand screen is swapped in by htmx (a poll, a tap): draw the keypad again if steps wait.
  document.addEventListener("htmx:load", function () { if (source() && load(source())) draw(show()); });
  window.addEventListener("online", trySend);
  setInterval(trySend, RETRY_MS);
  if (source() && load(source())) { draw(show()); trySend(); }
})();
