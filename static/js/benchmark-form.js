// The new benchmark run form: a field only one domain's task set reads (#Task combinations,
// time constraints, α values, team sizes) is shown for that domain, and an agent made for one
// domain (TDAG: itineraries) is offered only there; the prompt's hints and demonstration are shown
// for the agents whose prompts have them. The page comes with the fields of the domain and agent it
// is filled in for (BenchmarkForm.shown); this follows a change of either.
(function () {
  "use strict";
  function update() {
    const domain = document.getElementById("id_domain");
    if (!domain) return;
    const agent = document.getElementById("id_agent");
    document.querySelectorAll("[data-domains], [data-agents]").forEach(function (el) {
      const domains = el.dataset.domains ? el.dataset.domains.split(" ") : null;
      const agents = el.dataset.agents && agent ? el.dataset.agents.split(" ") : null;
      el.hidden = (domains !== null && domains.indexOf(domain.value) < 0) || (agents !== null && agents.indexOf(agent.value) < 0);
    });
    const only = agent && agent.dataset.optionDomains ? JSON.parse(agent.dataset.optionDomains) : {};
    if (!agent) return;
    agent.querySelectorAll("option").forEach(function (option) {
      const wanted = only[option.value];
      option.hidden = option.disabled = !!wanted && wanted !== domain.value;
    });
    if (agent.selectedOptions.length && agent.selectedOptions[0].disabled) {
      agent.value = agent.querySelector("option:not([disabled])").value;
      update();  // the prompt parts shown follow the agent now chosen
    }
  }
  document.addEventListener("change", function (event) { if (event.target.id === "id_domain" || event.target.id === "id_agent") update(); });
  document.addEventListener("DOMContentLoaded", update);
})();
