// The labelling page's keyboard: keys act on the highlighted step (see the shortcuts on the page).
// Setting a control dispatches a normal "change" event, so HTMX saves it exactly as a click would.
(() => {
  "use strict";
  const stepsRoot = document.getElementById("steps");
  if (!stepsRoot) return;
  const steps = () => Array.from(stepsRoot.querySelectorAll(".step[data-step]"));
  let current = null;

  function highlight(section) {
    if (!section || section === current) return;
    if (current) current.classList.remove("active");
    current = section;
    current.classList.add("active");
  }

  function go(section) {
    if (!section) return;
    highlight(section);
    section.focus({ preventScroll: true });
    section.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function move(delta) {
    const all = steps();
    const index = Math.max(0, all.indexOf(current));
    go(all[Math.min(all.length - 1, Math.max(0, index + delta))]);
  }

  function changed(input) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // "None" excludes the other choices of a multi-choice control (resources, dependencies).
  function exclusive(input) {
    const form = input.closest(".control-multi");
    if (!form || !input.checked) return;
    form.querySelectorAll("input[type=checkbox]").forEach((box) => {
      if (box === input) return;
      if (input.value === "none" || box.value === "none") box.checked = false;
    });
  }
  document.addEventListener("change", (event) => {
    if (event.target.matches(".control-multi input[type=checkbox]")) exclusive(event.target);
  }, true);

  // Arrow keys on a closed select change its value at each press, and each change would save: on
  // the way from "not labelled yet" to "After step 0" a keyboard user stored "No time constraint".
  // A change made by a key is held until the keys stop (or the field is left, or Enter), and only
  // the value the user stopped on is sent.
  const HOLD_MS = 800;
  let keyedAt = 0;
  let held = null;
  function release() {
    if (!held) return;
    const select = held.select;
    clearTimeout(held.timer);
    held = null;
    select.dataset.released = "1";
    changed(select);
  }
  document.addEventListener("keydown", (event) => {
    if (event.target.matches && event.target.matches("select[name=k]")) {
      if (event.key === "Enter") release();
      else keyedAt = Date.now();
    }
  }, true);
  // "(not labelled yet)" chosen over a saved label removes it: the saved minutes go with it (left
  // in the box, they made the post read as minutes typed before a step, and nothing was removed).
  function unlabelling(select) {
    const form = select.closest("form.control");
    if (select.value === "" && form && form.classList.contains("done") && form.elements.n) form.elements.n.value = "";
  }
  document.addEventListener("change", (event) => {
    const select = event.target;
    if (!(select.matches && select.matches("select[name=k]"))) return;
    if (select.dataset.released) { delete select.dataset.released; unlabelling(select); return; }
    if (Date.now() - keyedAt > 250) { unlabelling(select); return; } // a pick with the mouse saves at once
    event.stopImmediatePropagation();
    if (held && held.select !== select) release();
    if (held) clearTimeout(held.timer);
    held = { select, timer: setTimeout(release, HOLD_MS) };
  }, true);
  document.addEventListener("focusout", (event) => {
    if (held && event.target === held.select) release();
  }, true);

  function press(key) {
    if (!current) return false;
    if (key === "x") {
      const select = current.querySelector("select[name=k]:not(:disabled)");
      if (!select) return false;
      if (select.value !== "none") {
        select.value = "none";
        const minutes = current.querySelector("input[name=n]");
        if (minutes) minutes.value = "";
        changed(select);
      }
      return true;
    }
    const input = current.querySelector(`input[data-key="${CSS.escape(key)}"]:not(:disabled)`);
    if (input) {
      if (input.type === "radio") {
        if (input.checked) return true;
        input.checked = true;
      } else if (input.value === "none") {
        input.checked = true;
      } else {
        input.checked = !input.checked;
      }
      exclusive(input);
      changed(input);
      return true;
    }
    const field = current.querySelector(`[data-focus-key="${CSS.escape(key)}"]:not(:disabled)`);
    if (field) {
      field.focus();
      return true;
    }
    return false;
  }

  document.addEventListener("focusin", (event) => {
    const section = event.target.closest && event.target.closest(".step[data-step]");
    if (section) highlight(section);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const inField = target.matches && target.matches("select, textarea, input[type=number], input[type=text]");
    if (event.key === "Escape") {
      if (current) current.focus();
      return;
    }
    if (inField) return;
    const onChoice = target.matches && target.matches("input[type=radio], input[type=checkbox]");
    let handled = false;
    if (event.key === "j" || (event.key === "ArrowDown" && !onChoice)) { move(1); handled = true; }
    else if (event.key === "k" || (event.key === "ArrowUp" && !onChoice)) { move(-1); handled = true; }
    else if (event.key === "?") {
      const help = document.getElementById("shortcuts");
      if (help) help.open = !help.open;
      handled = true;
    } else if (event.key.length === 1) {
      handled = press(event.key.toLowerCase());
    }
    if (handled) event.preventDefault();
  });

  // A failed request (connection lost, server down) must not look saved.
  document.body.addEventListener("htmx:sendError", (event) => {
    const status = event.detail.elt.querySelector(".save-status");
    if (status) {
      status.textContent = "Not saved: the server cannot be reached. Change the field again when you are back online.";
      status.className = "save-status error";
    }
  });
  // A value the field itself refuses (minutes out of 1-999) is never sent: say so, or the last
  // message ("now enter within how many minutes") stays and the label looks saved.
  document.body.addEventListener("htmx:validation:halted", (event) => {
    const status = event.detail.elt.querySelector(".save-status");
    if (!status) return;
    const bad = (event.detail.errors || [])[0];
    const minutes = bad && bad.elt && bad.elt.name === "n";
    status.textContent = minutes
      ? `Not saved: the minutes must be a whole number from 1 to 999 (not ${bad.elt.value || "that"}).`
      : `Not saved: ${bad ? bad.message : "check the value"}`;
    status.className = "save-status error";
    status.setAttribute("role", "alert");
  });
  // A time constraint half entered (its step, not yet its minutes) is no label, so the server
  // keeps nothing of it: the browser keeps it until the minutes come, and a reload puts it back.
  // Only on a step with no label saved (the server marks that answer data-half): a half entry
  // kept over a saved label hid it after a reload (an empty box, the server still holding 3:10).
  const halfKey = (form) => `arena:half-constraint:${stepsRoot.dataset.who || ""}:${form.id}`;
  function keepHalf(form) {
    const status = form.querySelector(".save-status");
    try {
      if (status && status.hasAttribute("data-half") && !form.classList.contains("done")) {
        const minutes = form.elements.n ? form.elements.n.value : "";
        localStorage.setItem(halfKey(form), JSON.stringify({ k: form.elements.k.value, n: minutes }));
      } else {
        localStorage.removeItem(halfKey(form)); // saved, cleared or refused: the page shows the label
      }
    } catch (e) { /* storage off: the half entry lives as long as the page */ }
  }
  window.addEventListener("load", () => {
    stepsRoot.querySelectorAll("form.control-time_constraint").forEach((form) => {
      let half = null;
      try { half = JSON.parse(localStorage.getItem(halfKey(form)) || "null"); } catch (e) { half = null; }
      const select = form.elements.k;
      if (half && form.classList.contains("done")) { // a label was saved since: it is what the page shows
        try { localStorage.removeItem(halfKey(form)); } catch (e) { /* storage off */ }
        return;
      }
      if (!half || !select || select.matches(":disabled")) return;
      if (!Array.from(select.options).some((option) => option.value === half.k)) return;
      select.value = half.k;
      if (form.elements.n) form.elements.n.value = half.n || "";
      changed(select); // the server says again what is still missing (and saves nothing)
    });
  });

  // A saved label tints its control as a reload would (only the status is swapped in, so the
  // tint came only with the next page load).
  document.body.addEventListener("htmx:afterSwap", (event) => {
    const elt = event.detail.elt;
    let form = elt && elt.closest ? elt.closest("form.control") : null;
    if (form && !form.isConnected) form = document.getElementById(form.id); // re-rendered whole
    if (form && form.matches(".control-time_constraint")) keepHalf(form);
    const now = form && form.querySelector(".save-status.ok");
    if (now) form.classList.toggle("done", now.textContent.trim() === "Saved");
  });
  document.body.addEventListener("htmx:responseError", (event) => {
    const status = event.detail.elt.querySelector(".save-status");
    if (status) {
      status.textContent = `Not saved (${event.detail.xhr.status}). Reload the page; your earlier changes are kept.`;
      status.className = "save-status error";
    }
  });

  // Submitting makes the labels final: ask first. While labels are missing the server refuses it
  // and lists them (the count stands beside the button), so there is nothing to confirm.
  const submitForm = document.querySelector("form.submit-recipe");
  if (submitForm) {
    submitForm.addEventListener("submit", (event) => {
      const count = document.getElementById("submit-missing");
      if (count && Number(count.dataset.missing || 0) > 0) return;
      const title = submitForm.dataset.title || "this recipe";
      if (!window.confirm(`Submit ${title}? Its labels become final: you cannot change them afterwards.`)) {
        event.preventDefault();
      }
    });
  }

  // A reload put the page back where it was read while the keys act on the first unlabelled step,
  // out of sight: the page opens on that step instead.
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  const first = document.getElementById(`step-${stepsRoot.dataset.first}`) || steps()[0];
  if (first) {
    highlight(first);
    // a refused submit's message ("missing step 3: concurrency") stays in view, above the steps
    const refused = document.querySelector(".messages .message.error");
    if (stepsRoot.dataset.first !== "0" && !refused) first.scrollIntoView({ block: "center" });
  }
})();
