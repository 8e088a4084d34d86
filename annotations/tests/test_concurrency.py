"""Two annotators (or two tabs of one) saving at the same moment never overwrite each other.

Runs with real threads and real transactions; ``make test`` repeats it on Postgres.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from annotations import services
from annotations.models import Label
from annotations.tests.factories import make_annotator, make_recipe

ROUNDS = 15


def _run_together(workers):
    barrier = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def run(work):
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
def test_simultaneous_saves_keep_every_annotators_labels(researcher):
    if connection.vendor == "sqlite" and "memory" in connection.settings_dict["NAME"]:
        pytest.skip("the in-memory SQLite test database cannot take writes from two threads; run on Postgres")
    amy, bob = make_annotator("amy"), make_annotator("bob")
    project = services.create_project(
        name="Race",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency", "resource"],
        annotators=[amy, bob],
        annotators_per_item=2,
    )
    items = list(project.items.order_by("step"))

    def label_all(user, prop, values):
        def work():
            for round_ in range(ROUNDS):
                for item in items:
                    services.save_label(user=user, item=item, prop=prop, value=values[round_ % 2])

        return work

    _run_together(
        [
            label_all(amy, "concurrency", ["continuous", "autonomous"]),
            label_all(bob, "concurrency", ["autonomous", "continuous"]),
            label_all(amy, "resource", ["stove", "oven"]),  # amy's second tab, another property
        ]
    )
    final = {(label.annotator.name, label.item.step, label.property): label.value for label in Label.objects.all()}
    last = (ROUNDS - 1) % 2
    assert len(final) == 3 * len(items)
    for item in items:
        assert final[("amy", item.step, "concurrency")] == ["continuous", "autonomous"][last]
        assert final[("bob", item.step, "concurrency")] == ["autonomous", "continuous"][last]
        assert final[("amy", item.step, "resource")] == ["stove", "oven"][last]
