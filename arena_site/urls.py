"""Top-level URLs. Each app's URLs are included when the app provides them."""

from importlib.util import find_spec

from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from arena_site.health import healthz

admin.site.site_header = "The Arena: administration"

# Under /api/ these answer JSON (docs/api.md: every API error is {"error": ...}); elsewhere Django's pages.
handler400 = "games.api.bad_request"
handler403 = "games.api.permission_denied"
handler404 = "games.api.page_not_found"
handler500 = "games.api.server_error"

urlpatterns = [
    path("", account_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
]

for prefix, module in [
    ("", "games.urls"),
    ("studio/", "games.studio.urls"),
    ("annotate/", "annotations.urls"),
    ("studies/", "studies.urls"),
]:
    if find_spec(module) is not None:
        urlpatterns.append(path(prefix, include(module)))
