from django.urls import path

from games import views

app_name = "games"
urlpatterns = [
    path("scenarios/", views.scenario_list, name="scenarios"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario"),
]
