// The new-game form: "play together with" only for a tasks scenario (and not the scenario itself), the player picker only on
// human seats, the source game only on replay seats, how LLM teammates answer only with an LLM seat, and
// a hint when a kitchen written for several cooks has fewer seats filled.
// Without scripts every field stays visible.
(function () {
  "use strict";
  function update() {
    const domains = JSON.parse((document.getElementById("scenario-domains") || {}).textContent || "{}");
    const scenario = document.getElementById("id_scenario");
    const tasks = scenario && domains[scenario.value] === "tasks";
    // a kitchen written for several cooks says so while its extra seats are empty
    const crews = JSON.parse((document.getElementById("scenario-crews") || {}).textContent || "{}");
    const crew = scenario ? crews[scenario.value] || 0 : 0;
    const seated = 1 + Array.prototype.filter.call(document.querySelectorAll("[data-seat] select"), function (s) {
      return s.name && /^seat\d+$/.test(s.name) && s.value;
    }).length;
    document.querySelectorAll("[data-crew-hint]").forEach(function (el) {
      el.hidden = !(crew > seated);
      el.querySelectorAll("[data-crew]").forEach(function (n) { n.textContent = String(crew); });
    });
    document.querySelectorAll("[data-tasks-only]").forEach(function (el) {
      el.hidden = !tasks;
      el.querySelectorAll("option").forEach(function (o) {
        // the scenario itself is not offered to play together with itself (the server drops it anyway)
        const itself = !!scenario && o.value === scenario.value;
        o.hidden = itself;
        if (!tasks || itself) o.selected = false;
      });
    });
    // a replay seat copies a game of the same scenario
    document.querySelectorAll("[data-seat-for='npc:replay'] select").forEach(function (select) {
      select.querySelectorAll("option").forEach(function (o) {
        o.hidden = !!o.value && scenario && o.textContent.indexOf(" · " + scenario.value + " · ") < 0;
      });
    });
    let llm = false;
    document.querySelectorAll("[data-seat]").forEach(function (row) {
      const kind = row.querySelector("select").value;
      llm = llm || kind === "npc:llm";
      row.querySelectorAll("[data-seat-for]").forEach(function (el) { el.hidden = el.dataset.seatFor !== kind; });
    });
    // how the LLM teammates answer: only asked when a seat is one
    document.querySelectorAll("[data-llm-only]").forEach(function (el) { el.hidden = !llm; });
  }
  document.addEventListener("change", update);
  document.addEventListener("DOMContentLoaded", update);
})();
