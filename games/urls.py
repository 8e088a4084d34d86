from django.urls import path, re_path

from games import api, views

app_name = "games"
urlpatterns = [
    path("scenarios/", views.scenario_list, name="scenarios"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario"),
    path("games/", views.game_list, name="list"),
    path("games/mine/", views.my_games, name="mine"),
    path("games/stop-left-paused/", views.stop_left_paused, name="stop_left_paused"),
    path("games/new/", views.game_create, name="create"),
    path("games/<int:pk>/", views.play, name="play"),
    path("games/<int:pk>/control/", views.control, name="control"),
    path("games/<int:pk>/replay/", views.replay, name="replay"),
    path("api/scenarios/", api.scenario_list, name="api_scenarios"),
    path("api/games/", api.create_game, name="api_create"),
    path("api/games/<int:pk>/", api.game_detail, name="api_game"),
    path("api/games/<int:pk>/events/", api.game_events, name="api_events"),
]

# Benchmark runs and LLM call logs live in the npc app, under the same namespace.
from games.npc.urls import urlpatterns as npc_urlpatterns  # noqa: E402

urlpatterns += npc_urlpatterns

# Last: any other address under /api/ is the API's JSON 404, not the site's HTML page.
urlpatterns.append(re_path(r"^api/(?P<rest>.*)$", api.not_found, name="api_not_found"))
