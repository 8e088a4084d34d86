"""Storing scenarios: the one service every importer and loader uses to save playable content.

Saving the same definition again changes nothing (idempotent imports); a different definition
under the same slug becomes a new current version, and the old version stays for the games that
used it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction

from games.models import Scenario


@transaction.atomic
def save_scenario(
    *,
    domain: str,
    slug: str,
    title: str,
    source: str,
    definition: dict[str, Any],
    description: str = "",
    certificate: dict[str, Any] | None = None,
) -> tuple[Scenario, bool]:
    """Store ``definition`` under ``slug``; return (scenario, changed). A ``certificate`` (a generated
    instance's optimum) is kept with it; given again for the same definition it replaces the old
    one (a larger solver budget may have proven what a smaller one could not)."""
    current = Scenario.objects.select_for_update().filter(slug=slug, is_current=True).first()
    if current is not None and current.domain != domain:
        # a studio recipe saved as "tea-and-toast" became version 4 of the task of that name: the
        # task left every list and benchmark, and its games pointed at a recipe
        raise ValueError(f"{slug} is a {current.domain} scenario; a {domain} scenario needs a name of its own")
    if current is not None and current.definition == definition:
        fields: dict[str, Any] = {"title": title, "description": description}
        if certificate is not None:
            fields["certificate"] = certificate
        changed = [name for name, value in fields.items() if getattr(current, name) != value]
        if changed:
            for name in changed:
                setattr(current, name, fields[name])
            current.save(update_fields=changed)
        return current, False
    version = 1
    if current is not None:
        version = current.version + 1
        Scenario.objects.filter(pk=current.pk).update(is_current=False)
    scenario = Scenario.objects.create(
        domain=domain,
        slug=slug,
        version=version,
        title=title,
        source=source,
        description=description,
        definition=definition,
        certificate=certificate,
    )
    return scenario, True


def current_scenario(slug: str) -> Scenario:
    """The current version of ``slug``; raises Scenario.DoesNotExist with the slug in the message."""
    try:
        return Scenario.objects.get(slug=slug, is_current=True)
    except Scenario.DoesNotExist:
        raise Scenario.DoesNotExist(f"no scenario named {slug!r}; import it or check the name") from None


def prepared(domain: str, definition: dict[str, Any]) -> dict[str, Any]:
    """``definition`` with what saving derives from it in its domain (the recipes' reference plans
    for R-Efficiency): its authoring format's ``on_save``, when it has one."""
    from games.studio import formats

    try:
        finish = formats.format_of(domain).on_save
    except LookupError:
        return definition
    return finish(definition) if finish is not None else definition


def save_generated(domain: str, instances: Iterable[Mapping[str, Any]]) -> list[tuple[str, bool]]:
    """Store generated instances (``games.generators.family.generate``) as scenarios of source
    ``generated``, each described by how it was made and its certificate; (slug, changed) each."""
    from games.generators.family import certificate, describe, title

    saved = []
    for instance in instances:
        definition = prepared(domain, instance["definition"])
        _, changed = save_scenario(
            domain=domain,
            slug=instance["slug"],
            title=title(domain, {**instance, "definition": definition}),
            source="generated",
            definition=definition,
            description=describe(instance),
            certificate=certificate(domain, instance),
        )
        saved.append((instance["slug"], changed))
    return saved
