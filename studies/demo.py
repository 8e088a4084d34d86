"""The demo study ``seed_demo`` loads: MindAgent's conditions on bundled content (idempotent)."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from games.agents.llm_dispatcher import held_to_legal_actions
from games.engine import registry
from games.models import Scenario
from studies import services
from studies.models import NpcKind, PageKind, Study, StudyStatus

DEMO_SLUG = "demo-teammates"
# The kitchen is MindAgent's own study setting; then any other domain, in the registry's order.
FIRST_CHOICE = "kitchen"
CONDITIONS = [
    ("Alone", NpcKind.NONE, 0),
    ("1 LLM NPC", NpcKind.LLM, 1),
    ("2 LLM NPCs", NpcKind.LLM, 2),
    ("2 random NPCs", NpcKind.RANDOM, 2),
]
RULES = (
    "You will play a few short rounds of a cooking game. Orders arrive over time; prepare each dish "
    "before its order expires. In some rounds computer-controlled teammates help you: you can tell "
    "them what to do in the chat.\n\nEvery round is followed by a few questions about it."
)


# what the console says, so that someone trying the site can take part as a participant would
TRY_IT = f"take part as a participant at /studies/s/{DEMO_SLUG}/?pid=try-1 (a new pid for each try)"

TUTORIAL_SLUG = "bundled/warm-up"  # the kitchen's smallest level: a fitting practice round


def _pick_scenarios() -> tuple[list[Scenario], Scenario | None]:
    """Two bundled scenarios of the preferred domain, and a practice scenario."""
    for domain in sorted(registry.domains(), key=lambda d: d != FIRST_CHOICE):
        bundled = Scenario.objects.current().filter(domain=domain, source="bundled").order_by("slug")
        found = list(bundled.exclude(slug=TUTORIAL_SLUG)[:2])
        if found:
            return found, bundled.filter(slug=TUTORIAL_SLUG).first() or found[0]
    return [], None


def load_demo(log: Callable[[str], None] = print) -> int:
    existing = Study.objects.filter(slug=DEMO_SLUG).first()
    if existing is not None:
        if existing.status == StudyStatus.DRAFT and not existing.participants.exists():
            _open(existing, log)  # left in draft last time (no model answered): try again
        log(f"studies: demo study '{existing.title}' ({existing.get_status_display().lower()}): {TRY_IT}")
        return 0
    scenarios, tutorial = _pick_scenarios()
    if not scenarios:
        log("studies: no bundled scenarios yet, so no demo study")
        return 0
    with transaction.atomic():
        study = services.create_study(
            title="Demo: playing with LLM teammates", slug=DEMO_SLUG, completion_code="ARENA-DEMO"
        )
        study.description = "A four-condition within-subject demo after MindAgent's user study."
        study.save(update_fields=["description"])
        for name, kind, count in CONDITIONS:
            # LLM teammates held to legal actions: the bundled 135M model otherwise mostly writes
            # commands the rules refuse, and its teammates stand still (the design page can change it).
            dispatcher = held_to_legal_actions() if kind == NpcKind.LLM else None
            services.add_condition(study, name=name, npc_kind=kind, npc_count=count, dispatcher=dispatcher)
        for scenario in scenarios:
            services.add_scenario(study, scenario)
        services.add_onboarding_page(study, kind=PageKind.TEXT, title="How the game works", body=RULES)
        services.add_onboarding_page(
            study,
            kind=PageKind.TUTORIAL,
            title="Practice",
            body="Try the controls in a practice round. It does not count.",
            tutorial_scenario=tutorial,
        )
    log(f"studies: demo study '{study.title}' ({len(scenarios)} scenarios): {TRY_IT}")
    _open(study, log)
    return 1


def _open(study: Study, log: Callable[[str], None]) -> None:
    """Open the demo if its checklist passes (its LLM conditions need an answering endpoint)."""
    try:
        services.set_status(study, StudyStatus.OPEN)
    except services.StudyError as error:
        log(f"studies: the demo study stays in draft: {error}")
