from django.urls import path

from games.studio import views

app_name = "studio"
urlpatterns = [
    path("", views.index, name="index"),
    path("generate/", views.generator, name="generate"),
    path("generate/runs/<int:pk>/", views.generator_run, name="generate_run"),
    path("generate/runs/<int:pk>/stop/", views.generator_run_stop, name="generate_stop"),
    path("generate/runs/<int:pk>/save/", views.generator_run_save, name="generate_save"),
    path("generate/runs/<int:pk>/open/<int:index>/", views.generator_run_open, name="generate_open"),
    path("<str:domain>/new/", views.new, name="new"),
    path("<str:domain>/check/", views.check, name="check"),
    path("<str:domain>/save/", views.save, name="save"),
    path("edit/<int:pk>/", views.edit, name="edit"),
    path("export/<int:pk>/", views.download, name="export"),
    path("preview/<int:pk>/", views.scenario_preview, name="preview"),
]
