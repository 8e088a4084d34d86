import re

import pytest
from django.core.management import call_command
from django.test import Client
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


def _sign_in(client, password, address="10.0.0.1"):
    return client.post(reverse("accounts:login"), {"username": "res", "password": password}, REMOTE_ADDR=address)


def test_wrong_passwords_pause_signing_in_to_that_username_from_that_address(client, researcher, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(2):
        assert b"do not match" in _sign_in(client, "guess").content
    locked = _sign_in(client, "guess")
    assert locked.status_code == 429
    assert b"Sign-in paused" in locked.content and b"15 minutes" in locked.content
    # the right password no longer gets in from there, for as long as the pause lasts
    late = _sign_in(client, "pw-researcher-1")
    assert late.status_code == 429
    assert not client.get(reverse("home")).context["user"].is_authenticated
    # the researcher, from their own address, is not locked out by someone else's guesses
    assert _sign_in(Client(), "pw-researcher-1", address="10.0.0.2").status_code == 302


def test_behind_a_trusted_proxy_the_pause_is_per_client_address_the_proxy_saw(client, researcher, settings):
    settings.AXES_FAILURE_LIMIT = 2
    proxy = "10.9.9.9"  # every request reaches the server from the proxy

    def through_proxy(http, password, forwarded):
        return http.post(
            reverse("accounts:login"),
            {"username": "res", "password": password},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    # Without TRUSTED_PROXIES the header is the client's own word and is ignored: one address.
    for forwarded in ("198.51.100.1", "198.51.100.2"):
        through_proxy(client, "guess", forwarded)
    assert through_proxy(Client(), "pw-researcher-1", "203.0.113.7").status_code == 429
    call_command("axes_reset_username", "res")
    # With one trusted proxy, the address it appended counts; what the client wrote before it does not.
    settings.TRUSTED_PROXIES = 1
    for spoofed in ("1.1.1.1", "2.2.2.2"):
        through_proxy(client, "guess", f"{spoofed}, 198.51.100.1")
    assert through_proxy(Client(), "pw-researcher-1", "6.6.6.6, 198.51.100.1").status_code == 429
    assert through_proxy(Client(), "pw-researcher-1", "203.0.113.7").status_code == 302


def test_the_client_address_falls_back_to_the_connection_when_the_header_is_short_or_malformed(rf, settings):
    from arena_site.client_address import client_address

    settings.TRUSTED_PROXIES = 2
    assert client_address(rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="10.1.1.1")) == "10.0.0.5"
    assert client_address(rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="not-an-ip, 10.1.1.1")) == "10.0.0.5"
    two = rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="6.6.6.6, 192.0.2.4, 10.1.1.1")
    assert client_address(two) == "192.0.2.4"
    assert (
        client_address(rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="2001:db8::1, 10.1.1.1"))
        == "2001:db8::1"
    )


def test_a_right_password_resets_the_count_of_wrong_ones(client, researcher, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(2):
        _sign_in(client, "guess")
    assert _sign_in(client, "pw-researcher-1").status_code == 302
    client.post(reverse("accounts:logout"))
    for _ in range(2):
        assert _sign_in(client, "guess").status_code == 200
    assert _sign_in(client, "pw-researcher-1").status_code == 302


def test_a_pause_ends_after_its_cool_off_and_the_reset_command_lifts_it_early(client, researcher, settings):
    from axes.models import AccessAttempt
    from django.utils import timezone

    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(2):
        _sign_in(client, "guess")
    assert _sign_in(client, "pw-researcher-1").status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME)
    assert _sign_in(client, "pw-researcher-1").status_code == 302
    client.post(reverse("accounts:logout"))
    for _ in range(2):
        _sign_in(client, "guess")
    assert _sign_in(client, "pw-researcher-1").status_code == 429
    call_command("axes_reset_username", "res")
    assert _sign_in(client, "pw-researcher-1").status_code == 302


def test_token_is_stored_only_as_digest(researcher):
    raw = create_token(researcher, name="bot")
    token = ApiToken.objects.get()
    assert raw not in (token.digest, token.prefix) and token.prefix == raw[:8]
    assert user_for_token(raw) == researcher
    assert user_for_token("nope") is None
    assert user_for_request_header(f"Token {raw}") == researcher
    assert user_for_request_header(f"Bearer {raw}") == researcher  # RFC 6750's scheme, as most clients send
    assert token_from_header("Basic x") is None and token_from_header(f"Bearer{raw}") is None


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
    # each start says where to take part in the demo study, not only the first
    assert out.count("take part as a participant at /studies/s/demo-teammates/?pid=try-1") == 2
    assert django_user_model.objects.filter(username__in=["researcher", "annotator", "participant"]).count() == 3


def test_a_researcher_makes_a_token_on_the_web_sees_it_once_and_it_plays(client, researcher):
    # tokens were made only with manage.py: a researcher without a shell could not run a bot
    client.force_login(researcher)
    assert "No tokens yet" in client.get(reverse("accounts:tokens")).content.decode()
    made = client.post(reverse("accounts:tokens"), {"name": "  react   baseline "})
    html = made.content.decode()
    token = ApiToken.objects.get()
    raw = re.search(r'id="token-value" class="code token-value" value="([0-9a-f]{40})"', html).group(1)
    assert made.status_code == 200 and token.name == "react baseline" and token.prefix == raw[:8]
    assert "shown only this once" in html and f"Token {raw}" in html  # the curl example uses it
    assert re.search(r"<title>API tokens\b[^<]*</title>", html)  # the page's title is its name, nothing more
    listed = client.get(reverse("accounts:tokens")).content.decode()
    assert raw not in listed
    assert f"{raw[:8]}…" in listed and "never" in listed
    from games.bundled import load_bundled

    load_bundled(log=lambda line: None)
    game = Client().post(  # a program: no session, only the token
        "/api/games/",
        {"scenario": "bundled/make-tea", "seats": [{"kind": "program"}]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {raw}",
    )
    assert game.status_code == 201, game.content
    assert "never" not in client.get(reverse("accounts:tokens")).content.decode()  # last used: now


def test_a_token_is_revoked_by_its_owner_only(client, researcher, django_user_model):
    other = django_user_model.objects.create_user("res2", password="pw-other-2", is_staff=True)
    mine, theirs = create_token(researcher, name="mine"), create_token(other, name="theirs")
    client.force_login(researcher)
    assert theirs[:8] not in client.get(reverse("accounts:tokens")).content.decode()  # each sees their own
    their_pk = ApiToken.objects.get(user=other).pk
    assert client.post(reverse("accounts:revoke_token", args=[their_pk])).status_code == 404
    assert user_for_token(theirs) == other
    done = client.post(reverse("accounts:revoke_token", args=[ApiToken.objects.get(user=researcher).pk]), follow=True)
    assert user_for_token(mine) is None and "refused from now on" in done.content.decode()
    assert "revoked" in done.content.decode() and "Revoke " not in done.content.decode()


def test_tokens_are_not_made_by_participants_nor_with_bad_input(client, researcher, participant):
    client.force_login(participant)
    assert client.get(reverse("accounts:tokens")).status_code == 403
    assert client.post(reverse("accounts:tokens"), {"name": "x"}).status_code == 403
    client.force_login(researcher)
    long = client.post(reverse("accounts:tokens"), {"name": "n" * 101})
    assert long.status_code == 400 and "at most 100 characters" in long.content.decode()
    assert not ApiToken.objects.exists()
    for _ in range(20):
        create_token(researcher)
    full = client.post(reverse("accounts:tokens"), {"name": "one more"})
    assert full.status_code == 400 and "revoke one first" in full.content.decode()
    assert ApiToken.objects.count() == 20


def test_the_researchers_dashboard_leads_to_the_tokens_page(client, researcher):
    client.force_login(researcher)
    html = client.get(reverse("home")).content.decode()
    assert "0 active tokens" in html and reverse("accounts:tokens") in html


def test_the_admin_does_not_make_tokens_and_says_where_they_are_made(client, django_user_model):
    """An admin-made token had an empty prefix and digest and no token ever shown: a dead row."""
    admin_user = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    client.force_login(admin_user)
    create_token(admin_user, name="bot")
    assert client.get("/admin/accounts/apitoken/add/").status_code == 403
    listing = client.get("/admin/accounts/apitoken/")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "/admin/accounts/apitoken/add/" not in page
    assert "/accounts/tokens/" in page and "create_api_token" in page
    before = ApiToken.objects.count()
    client.post("/admin/accounts/apitoken/add/", {"user": admin_user.pk, "name": "x", "prefix": "", "digest": ""})
    assert ApiToken.objects.count() == before
