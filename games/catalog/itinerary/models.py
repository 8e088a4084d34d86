"""Browsable travel data of the itinerary domain: cities, places, trains, in-city transfers, briefs.

``source`` tells the published ItineraryBench world (``itinerarybench``) from our own bundled one
(``bundled``). Games never read these tables: each brief's Scenario carries the slice of the world
it needs (games/domains/itinerary/samples.py); these tables are for browsing, admin and the
read-only SQL tool of LLM agents.
"""

from __future__ import annotations

from django.db import models


class City(models.Model):
    source = models.CharField(max_length=40)
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["source", "name"]
        verbose_name_plural = "cities"
        constraints = [models.UniqueConstraint(fields=["source", "name"], name="itinerary_city_unique")]

    def __str__(self) -> str:
        return self.name


class Place(models.Model):
    class Kind(models.TextChoices):
        HOTEL = "hotel", "Hotel"
        SPOT = "spot", "Sight"

    city = models.ForeignKey(City, on_delete=models.CASCADE, related_name="places")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    opens = models.PositiveSmallIntegerField(help_text="Opening hour (0-24).")
    closes = models.PositiveSmallIntegerField(help_text="Closing hour (0-24).")

    class Meta:
        ordering = ["city", "name"]
        constraints = [models.UniqueConstraint(fields=["city", "name"], name="itinerary_place_unique")]

    def __str__(self) -> str:
        return f"{self.name} ({self.city})"


class Transfer(models.Model):
    """Minutes from one place to another inside a city."""

    origin = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="transfers_out")
    destination = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="transfers_in")
    minutes = models.PositiveIntegerField()

    class Meta:
        ordering = ["origin", "destination"]
        constraints = [models.UniqueConstraint(fields=["origin", "destination"], name="itinerary_transfer_unique")]

    def __str__(self) -> str:
        return f"{self.origin.name} -> {self.destination.name} ({self.minutes} min)"


class Train(models.Model):
    source = models.CharField(max_length=40)
    number = models.CharField(max_length=20)
    origin = models.ForeignKey(City, on_delete=models.CASCADE, related_name="departures")
    destination = models.ForeignKey(City, on_delete=models.CASCADE, related_name="arrivals")
    departure = models.DateTimeField()
    arrival = models.DateTimeField()
    minutes = models.PositiveIntegerField()
    price = models.DecimalField(max_digits=9, decimal_places=2)

    class Meta:
        ordering = ["departure", "number"]
        constraints = [models.UniqueConstraint(fields=["source", "number"], name="itinerary_train_unique")]
        indexes = [models.Index(fields=["origin", "destination", "departure"])]

    def __str__(self) -> str:
        return f"{self.number} {self.origin} -> {self.destination}"


class Brief(models.Model):
    """One traveller's request; ``slug`` is its scenario's slug (itinerarybench/type1-0, bundled/...)."""

    source = models.CharField(max_length=40)
    slug = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, help_text="inter-city, day-plan or combined")
    sample_index = models.PositiveIntegerField(null=True, blank=True, help_text="Index in data_typeN.json.")
    question = models.TextField()
    objective = models.CharField(max_length=10, help_text="money or time")
    settings = models.JSONField(default=dict, help_text="The published simulator settings, as given.")

    class Meta:
        ordering = ["source", "slug"]

    def __str__(self) -> str:
        return self.slug
