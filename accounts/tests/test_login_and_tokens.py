import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import ApiToken
from accounts.tokens import create_token, token_from_header, user_for_request_header, user_for_token

pytestmark = pytest.mark.django_db


def test_login_page_signs_in_and_out(client, researcher):
    page = client.get(reverse("accounts:login"))
    assert page.status_code == 200 and b'autocomplete="current-password"' in page.content
    bad = client.post(reverse("accounts:login"), {"username": "res", "password": "wrong"})
    assert b"do not match" in bad.content
    good = client.post(reverse("accounts:login"), {"username": "res", "password": "pw-researcher-1"})
    assert good.status_code == 302
    assert client.get(reverse("home")).context["user"].is_authenticated
    client.post(reverse("accounts:logout"))
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_token_is_stored_only_as_digest(researcher):
    raw = create_token(researcher, name="bot")
    token = ApiToken.objects.get()
    assert raw not in (token.digest, token.prefix) and token.prefix == raw[:8]
    assert user_for_token(raw) == researcher
    assert user_for_token("nope") is None
    assert user_for_request_header(f"Token {raw}") == researcher
    assert token_from_header("Bearer x") is None


def test_revoked_token_is_refused(researcher):
    raw = create_token(researcher)
    ApiToken.objects.update(revoked=True)
    assert user_for_token(raw) is None


def test_create_api_token_command(capsys, researcher):
    call_command("create_api_token", "res")
    raw = capsys.readouterr().out.strip()
    assert user_for_token(raw) == researcher


def test_create_api_token_unknown_user():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no user named"):
        call_command("create_api_token", "ghost")


def test_seed_demo_creates_role_accounts_idempotently(capsys, django_user_model):
    call_command("seed_demo")
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "Demo logins" in out
    assert django_user_model.objects.filter(username__in=["researcher", "annotator", "participant"]).count() == 3
