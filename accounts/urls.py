from django.urls import path

from accounts import annotator_views, token_views, views

app_name = "accounts"
urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("tokens/", token_views.tokens, name="tokens"),
    path("tokens/<int:pk>/revoke/", token_views.revoke, name="revoke_token"),
    path("annotators/new/", annotator_views.new_annotator, name="new_annotator"),
]
