// The new benchmark run form: a field only one domain's task set reads (#Task combinations,
// time constraints, α values, team sizes) is shown for that domain, and an agent made for one
// domain (TDAG: itineraries) is offered only there. Without scripts every field stays visible.
(function () {
  "use strict";
  function update() {
    const domain = document.getElementById("id_domain");
    if (!domain) return;
    document.querySelectorAll("[data-domains]").forEach(function (el) {
      el.hidden = el.dataset.domains.split(" ").indexOf(domain.value) < 0;
    });
    const agent = document.getElementById("id_agent");
    const only = agent && agent.dataset.optionDomains ? JSON.parse(agent.dataset.optionDomains) : {};
    if (!agent) return;
    agent.querySelectorAll("option").forEach(function (option) {
      const wanted = only[option.value];
      option.hidden = option.disabled = !!wanted && wanted !== domain.value;
    });
    if (agent.selectedOptions.length && agent.selectedOptions[0].disabled) agent.value = agent.querySelector("option:not([disabled])").value;
  }
  document.addEventListener("change", function (event) { if (event.target.id === "id_domain") update(); });
  document.addEventListener("DOMContentLoaded", update);
})();
