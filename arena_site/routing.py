"""Websocket URL patterns, collected from the apps that serve websockets."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []

try:
    from games.routing import websocket_urlpatterns as games_patterns
except ImportError:  # the games websocket lands with the real-time play issue
    games_patterns = []
websocket_urlpatterns += games_patterns
