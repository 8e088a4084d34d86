"""Appended to the ``games`` URL namespace (``games:benchmarks`` is in the researchers' menu)."""

from django.urls import path

from games.npc import views

urlpatterns = [
    path("benchmarks/", views.benchmark_list, name="benchmarks"),
    path("benchmarks/<int:pk>/", views.benchmark_detail, name="benchmark"),
    path("benchmarks/compare/<str:domain>/", views.benchmark_compare, name="benchmark_compare"),
    path("benchmarks/compare/<str:domain>/reference/", views.benchmark_reference, name="benchmark_reference"),
    path("benchmarks/<int:pk>/episodes/<int:result>/", views.benchmark_episode, name="benchmark_episode"),
    path("benchmarks/<int:pk>/stop/", views.benchmark_stop, name="benchmark_stop"),
    path("benchmarks/<int:pk>/resume/", views.benchmark_resume, name="benchmark_resume"),
    path("benchmarks/<int:pk>/again/", views.benchmark_again, name="benchmark_again"),
    path("benchmarks/<int:pk>/results.csv", views.benchmark_csv, name="benchmark_csv"),
    path("games/<int:pk>/llm-calls/", views.game_llm_calls, name="llm_calls"),
]
