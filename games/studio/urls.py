from django.urls import path

from games.studio import views

app_name = "studio"
urlpatterns = [
    path("", views.index, name="index"),
    path("generate/", views.generator, name="generate"),
    path("<str:domain>/new/", views.new, name="new"),
    path("<str:domain>/check/", views.check, name="check"),
    path("<str:domain>/save/", views.save, name="save"),
    path("edit/<int:pk>/", views.edit, name="edit"),
    path("export/<int:pk>/", views.download, name="export"),
    path("preview/<int:pk>/", views.scenario_preview, name="preview"),
]
