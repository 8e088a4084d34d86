"""ASGI entry point: HTTP goes to Django, websockets through origin and auth checks to the router."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena_site.settings")

from django.core.asgi import get_asgi_application

from arena_site.startup import (
    check_services_or_exit,
    freeze_what_start_up_made,
    load_settings_or_exit,
    off_the_event_loop,
)

django_asgi_app = load_settings_or_exit(get_asgi_application)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.websocket import OriginCheck, TokenAuthMiddleware  # noqa: E402
from arena_site.routing import websocket_urlpatterns  # noqa: E402
from games import scheduler  # noqa: E402

if os.environ.get("ARENA_SKIP_STARTUP_CHECKS") != "1":
    check_services_or_exit()
    off_the_event_loop(scheduler.start_process)

application = scheduler.EmbeddedSchedulerMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": OriginCheck(AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))),
        }
    )
)

freeze_what_start_up_made()
