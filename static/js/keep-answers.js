// A questionnaire half answered survives a reload: the browser keeps each choice (under the
// form's data-draft key, one per participant's game) until the form is sent. The answers reach
// the server only with the form, as before; a reload had put every statement back to blank.
(() => {
  "use strict";
  document.querySelectorAll("form[data-draft]").forEach((form) => {
    const key = `arena:draft:${form.dataset.draft}`;
    let kept = {};
    try { kept = JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch (e) { kept = {}; }
    Object.entries(kept).forEach(([name, value]) => {
      const group = form.querySelectorAll(`input[type=radio][name="${CSS.escape(name)}"]`);
      if (Array.from(group).some((input) => input.checked)) return; // the page's own answer stands
      const choice = Array.from(group).find((input) => input.value === String(value));
      if (choice) choice.checked = true;
    });
    form.addEventListener("change", (event) => {
      const input = event.target;
      if (!(input.matches && input.matches("input[type=radio]"))) return;
      kept[input.name] = input.value;
      try { localStorage.setItem(key, JSON.stringify(kept)); } catch (e) { /* storage off: kept as long as the page */ }
    });
    form.addEventListener("submit", () => {
      try { localStorage.removeItem(key); } catch (e) { /* nothing kept */ }
    });
  });
})();
