from django.urls import path

from games import views

app_name = "games"
urlpatterns = [
    path("scenarios/", views.scenario_list, name="scenarios"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario"),
]

# Benchmark runs and LLM call logs live in the npc app, under the same namespace.
from games.npc.urls import urlpatterns as npc_urlpatterns  # noqa: E402

urlpatterns += npc_urlpatterns
