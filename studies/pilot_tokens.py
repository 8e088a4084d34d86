"""The pilot marker of a study link: a signed token that lets pilots (scripted or a researcher
clicking through) join a draft study and keeps their data out of the analysis."""

from __future__ import annotations

from django.core import signing

from studies.models import Study

PILOT_SALT = "studies.pilot"
MAX_AGE_SECONDS = 7 * 24 * 3600


def pilot_token(study: Study) -> str:
    """A signed marker that lets scripted pilots join a draft study and keeps them out of analysis."""
    return signing.dumps({"study": study.pk}, salt=PILOT_SALT)


def is_pilot_token(token: str | None, study: Study) -> bool:
    """Whether ``token`` is this study's pilot marker, signed here within the last week."""
    if not token:
        return False
    try:
        return signing.loads(token, salt=PILOT_SALT, max_age=MAX_AGE_SECONDS).get("study") == study.pk
    except signing.BadSignature:
        return False
