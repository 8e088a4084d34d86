"""Project-wide test setup: role users, the datasets folder, and the services marker.

Every test that touches the database, the channel layer or Celery gets the ``services`` marker
automatically, so ``pytest -m services`` re-runs exactly those against Postgres + Redis.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from games.tests.browser_helpers import CHROMIUM, CHROMIUM_ARGS, need_chromium, screenshots_dir

SERVICE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
    "client",
    "admin_client",
    "django_user_model",
    "channel_layer",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("django_db") or fixtures & SERVICE_FIXTURES or item.get_closest_marker("services"):
            item.add_marker(pytest.mark.services)


@pytest.fixture(scope="session", autouse=True)
def _serial_live_server_on_sqlite():
    """On SQLite the live server's request threads share the test's one in-memory connection, and
    two requests at once (a game page's websocket retries while the player follows a link) fail
    with "bad parameter or other API misuse" (seen in CI: studies' keyboard walk-through). There
    the live server answers one request at a time; Django closes each HTTP connection when its
    server is not threaded, so a browser's parallel requests just queue. Postgres keeps the
    threaded server."""
    from django.core.servers.basehttp import WSGIServer
    from django.db import connection
    from django.test.testcases import LiveServerThread

    class SerialWSGIServer(WSGIServer):
        def __init__(self, *args, connections_override=None, **kwargs):
            super().__init__(*args, **kwargs)  # the serving thread already uses the overrides

    threaded = LiveServerThread.server_class
    if connection.vendor == "sqlite":
        LiveServerThread.server_class = SerialWSGIServer
    yield
    LiveServerThread.server_class = threaded


@pytest.fixture(autouse=True)
def toy_domain():
    """The test suite's toy game (``games/tests/toy.py``), registered by its one descriptor."""
    from games.engine import registry
    from games.tests import toy

    registry.register(toy.DOMAIN)
    yield
    registry.unregister("toy")


@pytest.fixture(autouse=True)
def _fresh_llm_endpoints():
    """Each test's stub endpoints start unknown: the process remembers which response format an
    endpoint took (``games.agents.llm.SPOKEN_STYLES``), and a later stub may reuse a port."""
    from games.agents.llm import SPOKEN_STYLES

    SPOKEN_STYLES.clear()
    yield
    SPOKEN_STYLES.clear()


@pytest.fixture(autouse=True)
def no_background_scheduler(monkeypatch):
    """No embedded scheduler thread in in-process tests (the live servers of browser tests run
    their own): tests drive it explicitly (``services.advance_due`` with a chosen ``now``). Left
    on, the first websocket connection started it in a thread of its own, whose writes to the
    in-memory SQLite database made a test's next act fail with "database table is locked"
    (studies' blinding test in a CI dry run)."""
    monkeypatch.setenv("GAMES_SCHEDULER", "off")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests create many users; the production hasher costs about a second per user here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def shots() -> Path:
    """The folder browser tests put their screenshots in (``screenshots/`` or ARENA_SCREENSHOTS)."""
    return screenshots_dir()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, plus: on Postgres, end the sessions other threads still hold (the live
    server's, the websocket tests' database threads) so the test database can be dropped."""
    yield
    with django_db_blocker.unblock():
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.fixture
def browser():
    """Debian's chromium driven by Playwright (never a downloaded browser); skips when absent."""
    need_chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    # Playwright's sync API runs an event loop; Django's async-unsafe guard would trip on the ORM
    # calls a test makes between browser steps. Only for this test: the guard stays on for the rest
    # of the session, where it catches real async-unsafe calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as p:
            instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield instance
            finally:
                instance.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """``../shared/datasets`` (or ARENA_DATASETS_DIR); skips the test when it is absent."""
    from django.conf import settings

    path = Path(settings.DATASETS_DIR)
    if not path.is_dir():
        pytest.skip(f"the public datasets are not at {path} (set ARENA_DATASETS_DIR); skipping")
    return path


@pytest.fixture
def fresh_presence(monkeypatch):
    """This test process is a fresh server ("this-process") with no seats held and a heartbeat due."""
    from games import presence

    monkeypatch.setattr(presence, "SERVER_ID", "this-process")
    presence.forget_local()
    presence._last_beat[0] = 0.0  # the first heartbeat of a test is due
    yield
    presence.forget_local()
    presence._last_beat[0] = 0.0


@pytest.fixture
def researcher(django_user_model):
    from accounts.roles import Role, grant

    user = django_user_model.objects.create_user("res", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    return user


@pytest.fixture
def annotator(django_user_model):
    from accounts.roles import Role, grant

    user = django_user_model.objects.create_user("ann", password="pw-annotator-1")
    grant(user, Role.ANNOTATOR)
    return user


@pytest.fixture
def participant(django_user_model):
    from accounts.roles import Role, grant

    user = django_user_model.objects.create_user("par", password="pw-participant-1")
    grant(user, Role.PARTICIPANT)
    return user


@pytest.fixture
def using_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith("postgres")


@pytest.fixture(scope="session")
def local_llm():
    """SmolLM2-135M served by llama.cpp's server on a free loopback port for the whole session;
    stopped at the end. Skips (saying how to install it) when the packages are missing."""
    from games.agents.local_model import LocalModelUnavailable, serve_local_model

    server = serve_local_model()
    try:
        base_url = server.__enter__()
    except LocalModelUnavailable as error:
        pytest.skip(str(error))
    try:
        yield base_url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
def llm_settings(settings, local_llm):
    from games.agents.local_model import MODEL_ALIAS

    settings.LLM_BASE_URL = local_llm
    settings.LLM_MODEL = MODEL_ALIAS
    # Generous: on a loaded 2-core machine a 135M model's reply can take a minute; nothing here
    # asserts on time.
    settings.LLM_TIMEOUT_SECONDS = 300.0  # the most a run or seat may ask for (games.agents.endpoints.LIMITS)
    settings.NPC_RETRY_SECONDS = 0  # the tests drive every turn themselves
    return settings
