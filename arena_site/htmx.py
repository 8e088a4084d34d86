"""The request type of views that ask django_htmx whether HTMX sent the request (its middleware
runs for every request, so ``request.htmx`` is always there)."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
