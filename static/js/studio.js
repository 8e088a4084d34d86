// The studio editor: jump to the line a problem names, and add a tasks action from the small form.
(function () {
  "use strict";
  function textarea() { return document.getElementById("studio-text"); }

  function gotoLine(line) {
    const area = textarea();
    const lines = area.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const end = start + (lines[line - 1] || "").length;
    area.focus();
    area.setSelectionRange(start, end);
    // Scroll the line into view: line height times the line number, roughly centred.
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (line - 5) * lineHeight);
  }

  function quote(text) { return JSON.stringify(text.trim().toLowerCase().replace(/\s+/g, " ")); }

  function addAction() {
    const get = (field) => document.querySelector(`#studio-add [data-field="${field}"]`);
    const doText = get("do").value.trim();
    if (!doText) { get("do").focus(); return; }
    const lines = ["", "[[actions]]", `do = ${quote(doText)}`, `minutes = ${parseInt(get("minutes").value, 10) || 1}`];
    if (get("background").checked) lines.push("background = true");
    const after = get("after").value.split(",").map((s) => s.trim()).filter(Boolean);
    if (after.length) lines.push(`after = [${after.map(quote).join(", ")}]`);
    const area = textarea();
    area.value = area.value.replace(/\s*$/, "\n") + lines.join("\n") + "\n";
    area.dispatchEvent(new Event("input", { bubbles: true }));
    get("do").value = ""; get("after").value = ""; get("background").checked = false;
    get("do").focus();
  }

  document.addEventListener("click", (event) => {
    const goto = event.target.closest(".studio-goto");
    if (goto) { gotoLine(parseInt(goto.dataset.line, 10)); return; }
    if (event.target.closest("#studio-add-button")) addAction();
  });
  // "Not saved: line 16 ..." is what the last Save found: once the text is checked again it is
  // gone when the check passes, and otherwise says that the check beside it is the text as it is now.
  document.addEventListener("htmx:afterSwap", (event) => {
    const check = document.getElementById("studio-check");
    const banner = document.getElementById("studio-not-saved");
    if (!check || !banner || event.detail.target !== check) return;
    if (!check.querySelector(".studio-problems")) { banner.remove(); return; }
    if (banner.dataset.outdated) return;
    banner.dataset.outdated = "1";
    banner.classList.replace("error", "warning");
    banner.removeAttribute("role");
    banner.textContent = "Not saved when you pressed Save; the text has changed since: its problems now are listed beside it.";
  });
  // A check the server could not answer must not leave the last good preview beside other text.
  document.addEventListener("htmx:responseError", (event) => {
    const check = document.getElementById("studio-check");
    if (!check || event.detail.target !== check) return;
    check.innerHTML = "";
    const note = document.createElement("p");
    note.className = "message error";
    note.setAttribute("role", "alert");
    note.textContent = "The check failed on the server, so there is no preview of this text. " +
      "Undo the last change and try again.";
    check.appendChild(note);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.closest("#studio-add input:not([type=checkbox])")) {
      event.preventDefault();
      addAction();
    }
  });
})();
