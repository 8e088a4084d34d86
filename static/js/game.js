// The game page between server updates: draws the clock from the stored anchor, moves running
// progress bars and the timeline's "now" line, and maps keyboard shortcuts to the action buttons.
// The server stays the only authority: nothing here changes the game, it only sends what you click.
(function () {
  "use strict";
  let offsetMs = 0; // server clock minus browser clock, from the last update

  function clockEl() { return document.querySelector("[data-clock]"); }

  function gameTime() {
    const el = clockEl();
    if (!el) return null;
    const anchor = parseFloat(el.dataset.anchorTime);
    if (el.dataset.mode !== "real_time" || el.dataset.paused === "true") return anchor;
    const elapsed = (Date.now() + offsetMs - Date.parse(el.dataset.anchorAt)) / 1000;
    const t = anchor + Math.max(0, elapsed) * parseFloat(el.dataset.speed);
    const limit = parseFloat(el.dataset.limit);
    return isNaN(limit) ? t : Math.min(t, limit);
  }

  // game seconds as m:ss (h:mm:ss from an hour), as the recipes board writes them
  function clockText(seconds) {
    const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    const pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
  }

  // The itinerary: trip minutes from its start ("YYYY-MM-DD HH:MM") as the traveller's clock.
  function tripStart(begin) {
    const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/.exec(begin || "");
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]) : null;
  }
  function tripStamp(begin, minutes) {
    const start = tripStart(begin);
    return start === null ? null : new Date(start + minutes * 60000).toISOString().slice(0, 16).replace("T", " ");
  }
  function tripText(begin, minutes, days) {
    const start = tripStart(begin);
    if (start === null) return "minute " + minutes;
    const stamp = tripStamp(begin, minutes);
    const day = Math.round((Date.parse(stamp.slice(0, 10)) - Date.parse(begin.slice(0, 10))) / 86400000) + 1;
    return days ? "day " + day + ", " + stamp.slice(11) : stamp.slice(11);
  }
  // "45 min", "16 h 57 min", "5 days 15 h": as games/itinerary_view.py's time_left writes it
  function leftText(minutes) {
    if (minutes < 60) return minutes + " min";
    const days = Math.floor(minutes / 1440), hours = Math.floor((minutes % 1440) / 60), mins = minutes % 60;
    if (days) return days + (days > 1 ? " days" : " day") + (hours ? " " + hours + " h" : "");
    return hours + " h" + (mins ? " " + mins + " min" : "");
  }
  // What the itinerary board says about now follows the running clock: the clock and the time
  // left, the times of day a button names (arrive, until), which sights are open; a train that
  // has left, a wait whose moment came or a visit that would run past closing is taken away
  // ([data-gone-at]: the trip minute from which the server would refuse it).
  function tripTick(begin, minutes, days) {
    const stamp = tripStamp(begin, minutes);
    if (stamp === null) return;
    const ofDay = function (m) { return tripStamp(begin, m).slice(11); };
    document.querySelectorAll("[data-trip-clock]").forEach(function (el) { el.textContent = stamp; });
    document.querySelectorAll("[data-trip-day]").forEach(function (el) { el.textContent = tripText(begin, minutes, days); });
    document.querySelectorAll("[data-minutes-left]").forEach(function (el) {
      el.textContent = leftText(Math.max(0, parseInt(el.dataset.minutesLeft, 10) - minutes));
    });
    document.querySelectorAll("#game-actions [data-after]").forEach(function (el) {
      el.textContent = ofDay(minutes + parseInt(el.dataset.after, 10));
    });
    const clockMinutes = parseInt(stamp.slice(11, 13), 10) * 60 + parseInt(stamp.slice(14, 16), 10);
    document.querySelectorAll(".board-itinerary [data-opens]").forEach(function (el) {
      const open = parseInt(el.dataset.opens, 10) * 60 <= clockMinutes && clockMinutes < parseInt(el.dataset.closes, 10) * 60;
      el.classList.toggle("open", open);
      el.classList.toggle("closed", !open);
      const text = el.querySelector("[data-open-now]");
      if (text) text.textContent = open ? "open now" : "closed now";
    });
    let gone = false;
    document.querySelectorAll("[data-gone-at]").forEach(function (el) {
      if (minutes < parseInt(el.dataset.goneAt, 10) || el.hidden) return;
      el.hidden = true;
      gone = true;
      if (el.tagName === "BUTTON") el.disabled = true;
    });
    if (gone) renumberKeys();
    document.querySelectorAll("#game-actions .action-buttons").forEach(function (group) {
      const shown = group.querySelectorAll("button.action:not([hidden])").length > 0;
      group.hidden = !shown;
      const title = group.previousElementSibling;
      if (title && title.classList.contains("action-group-title")) title.hidden = !shown;
    });
    const noneLeft = document.querySelector("#game-actions [data-none-left]");
    if (noneLeft) noneLeft.hidden = document.querySelectorAll("#game-actions button.action:not([hidden])").length > 0;
  }

  // The number keys count the buttons on show: one the clock took away gives its number to the
  // next (a phone's list read "2 Go to…, 3…, W" with no 1). A key that now means another action is
  // marked as changed, as after a teammate's action.
  function renumberKeys() {
    let next = 1;
    document.querySelectorAll("#game-actions button.action").forEach(function (b) {
      const was = b.dataset.keyWas || b.dataset.key || "";
      if (!/^[1-9]$/.test(was)) return;
      b.dataset.keyWas = was;
      const key = b.hidden ? "" : String(next++);
      if ((b.dataset.key || "") === key) return;
      const kbd = b.querySelector("kbd");
      if (key) {
        b.dataset.key = key;
        b.setAttribute("aria-keyshortcuts", key);
        if (kbd) kbd.textContent = key;
      } else {
        delete b.dataset.key;
        b.removeAttribute("aria-keyshortcuts");
        if (kbd) kbd.remove();
      }
    });
    noteKeys();
  }

  // The server's "now" as a drawing of the clock said it, once per drawing: a frame that redraws
  // something else (a teammate deciding, a refusal) left the old drawing in place, and syncing to
  // its old "now" again set the clock back to it (it ran 4.0 to 4.2 and back for 45 s, then leapt).
  let syncedFrom = null;
  function syncOffset() {
    const el = clockEl();
    if (!el || !el.dataset.serverNow || el.dataset.serverNow === syncedFrom) return;
    syncedFrom = el.dataset.serverNow;
    offsetMs = Date.parse(el.dataset.serverNow) - Date.now();
    staleFeedback();
  }

  // "Not taken: ..." answers the last thing the player did; once the game has moved on a while
  // (a new drawing of it, seconds later) or ended, it no longer does: it stood beside the result,
  // and "Player 1 has not yet" stayed after Player 1 had pressed Start.
  const FEEDBACK_MS = 3000;
  let feedbackText = "";
  let feedbackAt = 0;
  function noteFeedback() {
    const box = document.getElementById("game-feedback");
    const text = box ? box.textContent.trim() : "";
    if (text !== feedbackText) { feedbackText = text; feedbackAt = Date.now(); }
  }
  function staleFeedback() {
    const box = document.getElementById("game-feedback");
    if (!box) return;
    noteFeedback();
    const text = box.textContent.trim();
    const over = document.querySelector("#game-result h2");
    if (text && (over || Date.now() - feedbackAt > FEEDBACK_MS)) {
      box.textContent = "";
      box.className = "feedback";
      feedbackText = "";
    }
  }

  function tick() {
    const t = gameTime();
    if (t === null) return;
    const el = clockEl();
    const value = el.querySelector("[data-clock-value]");
    if (value) {
      const format = el.dataset.format;
      if (format === "clock") value.textContent = clockText(Math.floor(t)); // recipes' seconds, as the board
      else if (format === "step") value.textContent = String(Math.floor(t)); // the kitchen's whole steps
      else if (format === "trip") value.textContent = tripText(el.dataset.begin, Math.floor(t), el.dataset.days === "1");
      else value.textContent = el.dataset.mode === "real_time" ? t.toFixed(1) : String(Math.round(t * 100) / 100);
    }
    if (el.dataset.format === "trip") tripTick(el.dataset.begin, Math.floor(t), el.dataset.days === "1");
    document.querySelectorAll("[data-run-start]").forEach(function (run) {
      const start = parseFloat(run.dataset.runStart);
      const end = parseFloat(run.dataset.runEnd);
      const bar = run.querySelector(".progress > span");
      if (!isNaN(end) && bar) bar.style.width = Math.min(100, Math.max(0, (100 * (t - start)) / (end - start))) + "%";
      const left = run.querySelector("[data-run-left]");
      if (left && !isNaN(end)) {
        const rest = Math.max(0, Math.ceil(end - t - 1e-9));
        // minutes as the header writes the clock, to a tenth ("1.3 min left" beside "t = 2.7 / 40",
        // where a rounded-up "2 min left" read wrong)
        const minutes = Math.max(0, end - t);
        left.textContent = run.dataset.runFormat === "clock" ? clockText(rest) + " left"
          : (minutes < 10 ? minutes.toFixed(1) : String(Math.ceil(minutes - 1e-9))) + " min left";
      }
    });
    // countdowns in game seconds ("start within 3:12"): a deadline drawn as time left
    document.querySelectorAll("[data-countdown-end]").forEach(function (el) {
      const rest = parseFloat(el.dataset.countdownEnd) - t;
      el.textContent = (el.dataset.countdownPrefix || "") + clockText(Math.max(0, Math.floor(rest)));
      if (el.dataset.countdownUrgent) el.classList.toggle("urgent", rest < parseFloat(el.dataset.countdownUrgent));
    });
    document.querySelectorAll("[data-game-clock]").forEach(function (el) { el.textContent = clockText(Math.floor(t)); });
    // a wall-clock deadline (a computer teammate takes an absent player's seat): "in 0:42"
    document.querySelectorAll("[data-wall-countdown]").forEach(function (el) {
      const left = (Date.parse(el.dataset.wallCountdown) - (Date.now() + offsetMs)) / 1000;
      el.textContent = left > 0 ? "in " + clockText(Math.ceil(left)) : "any moment now";
    });
    const timeline = document.getElementById("game-timeline");
    if (timeline) {
      const span = parseFloat(timeline.dataset.span);
      redrawPastEnd(el, t, span);
      const now = timeline.querySelector("[data-now-line]");
      if (now && span) now.style.left = Math.min(100, (100 * t) / span) + "%";
      timeline.querySelectorAll(".tl-bar.running").forEach(function (bar) {
        if (bar.dataset.runEnd) return; // a known end is drawn already
        const start = parseFloat(bar.dataset.runStart);
        bar.style.width = Math.max(0, (100 * (t - start)) / span) + "%";
      });
    }
  }

  // A real-time clock runs on while nobody acts; the timeline and the score chart end a little
  // after the time they were drawn at. Once the clock passes that end, ask the server once (per
  // drawing) to bring the game up to now and draw it again.
  let syncedSpan = null;
  function redrawPastEnd(clock, t, span) {
    if (clock.dataset.mode !== "real_time" || clock.dataset.paused === "true") return;
    if (!(span > 0) || t <= span || syncedSpan === span) return;
    const sync = document.getElementById("game-sync");
    if (!sync) return;
    syncedSpan = span;
    sync.click();
  }

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") {
        // "Esc gives the keys back to the game": to the first action now, or once there is one
        // (blurred, the focus stayed on the page, and no redraw gave it to an action)
        const fromGame = event.target.closest && event.target.closest("#game-chat, #game-actions");
        event.target.blur();
        if (fromGame) { actionFocus = { action: "", index: 0 }; restoreFocus(); }
      }
      return;
    }
    // the message list takes focus so that a keyboard scrolls it: its arrow keys are its own
    const inLog = event.target && event.target.id === "game-log-list";
    if (floorMove(event)) return;
    if (!inLog && arrowMove(event)) return;
    const key = event.key.toLowerCase();
    if (key === "?") { toggleHelp(); event.preventDefault(); return; }
    if (event.key === "Escape" && helpOpen()) { toggleHelp(); event.preventDefault(); return; }
    if (key === "c") { focus("#chat-text", event); return; }
    if (key === "a") { focus("#free-action", event); return; }
    const button = document.querySelector('#game-actions [data-key="' + key + '"], #game-status [data-key="' + key + '"]');
    if (button && !button.disabled) {
      if (button.hasAttribute("data-key-fresh")) { keyMoved(button); event.preventDefault(); return; }
      button.click(); event.preventDefault();
    }
  });

  // A number key names a place in the list of actions, and the list can change under a player who
  // is about to press it: a teammate took the action, a step finished by itself. A playtester's
  // "1" did "wait until something finishes" that way. A key whose action changed in the last
  // moment (not in answer to this page's own action) is marked fresh: pressed then, it does nothing
  // and says what it does now; pressed again, it does that.
  const KEY_FRESH_MS = 800;
  let keyActions = null; // key -> action, as last drawn; null until the first drawing
  let actAnsweredBy = 0; // until when a redraw answers this page's own action
  // how long an answer may take: a moment, or in real time the clock's next unit and a moment (a
  // kitchen's command is played at the next step, 2 s later at its default speed)
  function answerMs() {
    const clock = clockEl();
    const speed = clock ? Number(clock.dataset.speed) : 0;
    const unit = clock && clock.dataset.mode === "real_time" && speed > 0 ? 1000 / speed : 0;
    return Math.max(1500, Math.min(unit, 10000) + 700);
  }
  let freshUntil = {}; // key -> until when it stays fresh (a redraw makes new buttons)
  function noteKeys() {
    const now = performance.now();
    const drawn = {};
    document.querySelectorAll("#game-actions button.action[data-key]").forEach(function (b) {
      if (/^[1-9]$/.test(b.dataset.key)) drawn[b.dataset.key] = b;
    });
    const own = now < actAnsweredBy;
    Object.keys(drawn).forEach(function (key) {
      const b = drawn[key];
      // a key that had no action a moment ago (the list was empty while the cook was busy) had
      // no meaning to protect
      const before = keyActions === null ? undefined : keyActions[key];
      const moved = !own && before !== undefined && before !== b.dataset.action;
      if (moved) {
        b.setAttribute("data-key-fresh", String(now + KEY_FRESH_MS));
      } else if (keyActions !== null && keyActions[key] === b.dataset.action && freshUntil[key] > now) {
        b.setAttribute("data-key-fresh", String(freshUntil[key])); // a redraw keeps the mark
      }
    });
    freshUntil = {};
    keyActions = {};
    Object.keys(drawn).forEach(function (key) {
      keyActions[key] = drawn[key].dataset.action;
      const until = Number(drawn[key].getAttribute("data-key-fresh") || 0);
      if (until) freshUntil[key] = until;
    });
    noteSlots(now, own);
  }

  // The same for a pointer: a button is a place on the screen, and a teammate's action that takes
  // a row out of the list moves every row below it up under the pointer (a playtester's click,
  // aimed at "Start Omelette step 0", started step 1). A button whose place showed another action
  // a moment ago is marked moved; clicked then, it does nothing and says what it does now.
  let slotActions = null; // the actions of the list's buttons, top to bottom, as last drawn
  let movedUntil = {}; // place in the list -> until when its button counts as moved
  function noteSlots(now, own) {
    const buttons = Array.prototype.slice.call(document.querySelectorAll("#game-actions button.action"));
    buttons.forEach(function (b, i) {
      const before = slotActions === null ? undefined : slotActions[i];
      if (!own && before !== undefined && before !== b.dataset.action) {
        b.setAttribute("data-moved", String(now + KEY_FRESH_MS));
      } else if (before === b.dataset.action && movedUntil[i] > now) {
        b.setAttribute("data-moved", String(movedUntil[i]));
      }
    });
    slotActions = buttons.map(function (b) { return b.dataset.action; });
    movedUntil = {};
    buttons.forEach(function (b, i) {
      const until = Number(b.getAttribute("data-moved") || 0);
      if (until) movedUntil[i] = until;
    });
  }
  document.addEventListener("click", function (event) {
    // a pointer's click only: Enter or Space on a focused button (detail 0) does what it shows
    if (!event.detail || !event.target.closest) return;
    const button = event.target.closest("#game-actions button.action[data-moved]");
    if (!button || Number(button.getAttribute("data-moved")) <= performance.now()) return;
    event.preventDefault();
    event.stopPropagation(); // before htmx's own listener on the button sends it
    const buttons = Array.prototype.slice.call(document.querySelectorAll("#game-actions button.action"));
    delete movedUntil[buttons.indexOf(button)];
    button.removeAttribute("data-moved");
    const box = document.getElementById("game-feedback");
    if (!box) return;
    box.textContent = "The actions just changed: this button is now \u201c" + actionLabel(button) + "\u201d. Click it again to do it.";
    box.className = "feedback warn";
    noteFeedback();
  }, true);
  function actionLabel(button) {
    return button.textContent.replace(/^\s*\S+\s+/, "").replace(/\s+/g, " ").trim();
  }
  function settleKeys() {
    const now = performance.now();
    document.querySelectorAll("#game-actions [data-key-fresh]").forEach(function (b) {
      if (Number(b.getAttribute("data-key-fresh")) <= now) { b.removeAttribute("data-key-fresh"); delete freshUntil[b.dataset.key]; }
    });
    document.querySelectorAll("#game-actions [data-moved]").forEach(function (b) {
      if (Number(b.getAttribute("data-moved")) <= now) b.removeAttribute("data-moved");
    });
  }
  function keyMoved(button) {
    const box = document.getElementById("game-feedback");
    const label = actionLabel(button);
    button.removeAttribute("data-key-fresh");
    delete freshUntil[button.dataset.key];
    if (!box) return;
    box.textContent = "The actions just changed: " + button.dataset.key + " is now \u201c" + label + "\u201d. Press " + button.dataset.key + " again to do it.";
    box.className = "feedback warn";
    noteFeedback();
  }

  // Every action is reachable by keyboard: the arrow keys (and Home/End) move between the action
  // buttons, Enter or Space does the focused one; from anywhere else, an arrow key enters the list.
  function moreSummaries() {
    return Array.prototype.slice.call(document.querySelectorAll("#game-actions details.more-actions > summary"));
  }
  function actionButtons() {
    // the visible ones (a folded group's buttons are reached by opening it)
    return Array.prototype.slice.call(document.querySelectorAll("#game-actions button.action, #game-actions details.more-actions > summary"))
      .filter(function (b) {
        // a closed group's buttons still have an offsetParent in chromium: ArrowUp from W went to
        // a hidden one and the focus stayed put
        if (b.tagName !== "SUMMARY" && b.closest("details:not([open])")) return false;
        return b.offsetParent !== null || b.getClientRects().length;
      });
  }

  // The kitchen's floor plan is one Tab stop: the arrow keys (and Home/End) move between its
  // places, in reading order; Enter or Space picks the focused one.
  function floorMove(event) {
    const here = event.target && event.target.closest && event.target.closest("[data-pick-place]");
    if (!here || !(event.key in MOVES)) return false;
    const places = Array.prototype.slice.call(document.querySelectorAll("[data-pick-place]"));
    focusPlace(places[moved(places.length, places.indexOf(here), MOVES[event.key])]);
    event.preventDefault();
    return true;
  }

  // the one place of the floor plan that Tab reaches, and the focus, on ``place``
  function focusPlace(place) {
    document.querySelectorAll("[data-pick-place]").forEach(function (p) { p.tabIndex = p === place ? 0 : -1; });
    place.focus();
  }

  const MOVES = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, Home: "first", End: "last" };
  // the index a move leads to in a list of ``count``, from ``at`` (-1: not in it yet)
  function moved(count, at, move) {
    if (move === "first") return 0;
    if (move === "last") return count - 1;
    if (at < 0) return 0;
    return Math.min(count - 1, Math.max(0, at + move));
  }

  function arrowMove(event) {
    if (!(event.key in MOVES)) return false;
    const buttons = actionButtons();
    if (!buttons.length) return false;
    const here = buttons.indexOf(document.activeElement);
    if (here < 0 && (event.key === "Home" || event.key === "End") && document.activeElement !== document.body) return false;
    buttons[moved(buttons.length, here, MOVES[event.key])].focus();
    event.preventDefault();
    return true;
  }

  // After an action the server redraws the action list; keep the focus in it (on the same action
  // when it is still possible, else at the same position) instead of dropping it to the page.
  let actionFocus = null;
  let placeFocus = null; // the kitchen place in focus, found again after a redraw of the floor plan
  // a task list's button in focus: pressed, it becomes a running line and the focus fell to the page
  let taskFocus = null;
  function taskButtons() { return Array.prototype.slice.call(document.querySelectorAll(".ta-do")); }
  document.addEventListener("focusin", function (event) {
    const button = event.target.closest && event.target.closest("#game-actions button.action, #game-actions summary");
    const place = event.target.closest && event.target.closest("[data-pick-place]");
    placeFocus = place ? place.dataset.pickPlace : null;
    const task = event.target.closest && event.target.closest(".ta-do");
    taskFocus = task ? { action: task.dataset.action, index: taskButtons().indexOf(task) } : null;
    // a folded group's summary is found again as a summary (by position among them): found by its
    // position among all the actions, a redraw that added one moved the focus onto "Take tomato"
    const summaries = button && button.tagName === "SUMMARY" ? moreSummaries() : null;
    if (button) actionFocus = { action: button.dataset.action || "", index: actionButtons().indexOf(button), summary: summaries ? summaries.indexOf(button) : -1 };
    // Start goes away once pressed: the focus moves on to the first action (while it is there, a
    // redraw keeps it on Start; a redrawn Start took the focus back by autofocus, from the chat box too)
    else if (event.target.closest && event.target.closest(".ready-gate")) actionFocus = { action: "", index: 0, gate: true };
    else if (event.target !== document.body) actionFocus = null;
  });
  function restoreFocus() {
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    const place = placeFocus && document.querySelector('[data-pick-place="' + CSS.escape(placeFocus) + '"]');
    if (place) { focusPlace(place); return; }
    if (taskFocus) {
      // the same task's button, else the one now in its place in the list, else the actions
      const tasks = taskButtons();
      const same = tasks.find(function (b) { return b.dataset.action === taskFocus.action; });
      const next = same || tasks[Math.min(taskFocus.index, tasks.length - 1)];
      if (next) { next.focus(); return; }
      taskFocus = null;
      actionFocus = { action: "", index: 0 };
    }
    // nothing chosen yet (Start may have taken the focus by autofocus before this script listened):
    // the redraw took Start away from under the focus, so the new Start takes it
    if (!actionFocus) { focusGate(); return; }
    const gate = actionFocus.gate && document.querySelector(".ready-gate button");
    if (gate) { gate.focus(); return; }
    const summary = actionFocus.summary >= 0 && moreSummaries()[actionFocus.summary];
    if (summary) { summary.focus(); return; }
    const buttons = actionButtons();
    if (!buttons.length) return;
    const same = actionFocus.action && buttons.find(function (b) { return b.dataset.action === actionFocus.action; });
    (same || buttons[Math.min(actionFocus.index, buttons.length - 1)] || buttons[0]).focus();
  }

  // a folded group of actions stays open across the server's redraws once the player opened it
  let moreOpen = false;
  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("#game-actions details.more-actions")) moreOpen = event.target.open;
  }, true);
  function keepMoreOpen() {
    document.querySelectorAll("#game-actions details.more-actions").forEach(function (d) { if (moreOpen) d.open = true; });
  }

  // Kitchen: picking a place on the floor plan marks it and the commands possible there.
  let pickedPlace = null;
  function showPicked(focusFirst) {
    document.querySelectorAll(".place.picked, #game-actions .action.picked").forEach(function (el) { el.classList.remove("picked"); });
    if (!pickedPlace) return;
    document.querySelectorAll('[data-pick-place="' + CSS.escape(pickedPlace) + '"]').forEach(function (el) { el.classList.add("picked"); });
    // a folded group holding the place's commands opens, so every place's commands are reachable
    document.querySelectorAll('#game-actions details.more-actions').forEach(function (d) {
      if (d.querySelector('button.action[data-place="' + CSS.escape(pickedPlace) + '"]')) d.open = true;
    });
    const here = actionButtons().filter(function (b) { return b.dataset.place === pickedPlace; });
    here.forEach(function (b) { b.classList.add("picked"); });
    if (focusFirst && here.length) here[0].focus();
  }
  document.addEventListener("click", function (event) {
    const place = event.target.closest && event.target.closest("[data-pick-place]");
    if (!place) return;
    pickedPlace = place.dataset.pickPlace;
    showPicked(true);
  });

  function focus(selector, event) {
    const el = document.querySelector(selector);
    if (el) { el.focus(); event.preventDefault(); }
  }

  function helpOpen() {
    const help = document.getElementById("shortcuts");
    return !!help && !help.hidden;
  }

  function toggleHelp() {
    const help = document.getElementById("shortcuts");
    const toggle = document.querySelector("[data-help-toggle]");
    if (!help) return;
    help.hidden = !help.hidden;
    if (toggle) toggle.setAttribute("aria-expanded", String(!help.hidden));
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-help-toggle]")) toggleHelp();
  });

  // forms redrawn by the websocket carry no CSRF token; the page's own (on <body>) is valid
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!form.matches || !form.matches("[data-csrf-form]")) return;
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    try {
      const token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
      if (input && token) input.value = token;
    } catch (error) { /* keep what the page rendered */ }
  }, true);

  function connection(text, bad) {
    const el = document.querySelector("[data-connection]");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("bad", !!bad);
  }

  document.addEventListener("htmx:wsOpen", function () { connection("", false); });
  document.addEventListener("htmx:wsClose", function () {
    connection("Reconnecting… everything you did is saved on the server.", true);
  });
  // keep the message list at its newest entry, unless the reader scrolled up to read older ones
  // (a message may send the log whole, which would start a new list at its top)
  let logPinned = true;
  let logScroll = 0;
  function pinLog() {
    const log = document.getElementById("game-log-list");
    if (log) log.scrollTop = logPinned ? log.scrollHeight : logScroll;
  }
  document.addEventListener("scroll", function (event) {
    const log = event.target;
    if (log && log.id === "game-log-list") {
      logPinned = log.scrollTop + log.clientHeight >= log.scrollHeight - 24;
      logScroll = log.scrollTop;
    }
  }, true);
  // A refusal said again and again (keys pressed while busy) reads as one line with a count: eight
  // "You are busy with fill kettle until t=1" lines pushed the game's news out of the panel.
  function logText(entry) {
    const message = entry.querySelector(".log-message");
    return message ? message.textContent.trim() : "";
  }
  function collapseRepeats() {
    document.querySelectorAll("#game-log-list > li.log-entry.kind-rejected").forEach(function (entry) {
      const before = entry.previousElementSibling;
      if (!before || before.className !== entry.className || logText(before) !== logText(entry)) return;
      const times = (parseInt(before.dataset.repeats || "1", 10) || 1) + 1;
      before.remove();
      entry.dataset.repeats = String(times);
      let count = entry.querySelector(".log-repeats");
      if (!count) {
        count = document.createElement("span");
        count.className = "log-repeats";
        entry.appendChild(count);
      }
      count.textContent = "×" + times;
      count.title = "refused " + times + " times in a row";
    });
  }
  document.addEventListener("htmx:wsAfterMessage", function () { collapseRepeats(); noteFeedback(); syncOffset(); noteKeys(); tick(); pinLog(); keepMoreOpen(); showPicked(false); restoreFocus(); });
  document.addEventListener("htmx:afterSwap", pinLog);
  // a command typed as a button reads ("add tea leaves to teapot") is sent as the button's own
  // command ("add tea_leaves to teapot"): the page writes the grammar's joined words as words
  function typedWords(text) {
    return String(text || "").toLowerCase().replace(/_/g, " ").replace(/\s+/g, " ").trim().replace(/[.!]+$/, "");
  }
  document.addEventListener("htmx:wsConfigSend", function (event) {
    const form = event.target.closest && event.target.closest("form.free-action");
    const params = event.detail && event.detail.parameters;
    if (!form || !params || typeof params.action !== "string") return;
    const typed = typedWords(params.action);
    const same = Array.from(document.querySelectorAll("#game-actions button.action[data-action]"))
      .map(function (b) { return b.dataset.action; })
      .filter(function (action) { return action !== params.action && typedWords(action) === typed; });
    if (same.length === 1) params.action = same[0];
  });
  // Lockstep: one action in flight at a time. A second press before the server's answer went out
  // as the old button's action, which by then named something done or gone: refused, and a kitchen
  // step lost. Real time keeps its rule (a second command in a step replaces the first).
  let actSentAt = 0;
  document.addEventListener("htmx:wsConfigSend", function (event) {
    const params = event.detail && event.detail.parameters;
    const clock = clockEl();
    if (!params || params.type !== "act" || !clock || clock.dataset.mode === "real_time") return;
    if (actSentAt && performance.now() - actSentAt < 3000) { event.preventDefault(); return; }
    actSentAt = performance.now();
  });
  document.addEventListener("htmx:wsAfterMessage", function () { actSentAt = 0; });
  document.addEventListener("htmx:wsAfterSend", function (event) {
    // the redraws of the next moment answer this action: their new keys are no surprise
    let sent = null;
    try { sent = JSON.parse(event.detail && event.detail.message); } catch (e) { sent = null; }
    if (sent && sent.type === "act") actAnsweredBy = performance.now() + answerMs();
    const form = event.target.closest && event.target.closest("form");
    if (form) form.querySelectorAll("input[name=text], input[name=action]").forEach(function (i) { i.value = ""; });
  });

  // Start takes the focus as the page opens, by script rather than by autofocus alone: the browser
  // may apply autofocus late, and the status the socket pushes on connecting could replace the
  // button first (the focus then stayed on the page, and Enter did nothing). On a slow load it is
  // the other way round: autofocus has put the focus on Start before this script listened for it,
  // and restoreFocus, with no focus recorded, puts it on the redrawn Start through here.
  function focusGate() {
    const gate = document.querySelector(".ready-gate button");
    const active = document.activeElement;
    if (gate && (!active || active === document.body)) gate.focus();
  }
  focusGate();
  document.addEventListener("DOMContentLoaded", function () { collapseRepeats(); focusGate(); syncOffset(); noteKeys(); tick(); pinLog(); });
  setInterval(tick, 200);
  setInterval(settleKeys, 100);
})();
