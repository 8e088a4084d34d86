"""Prompt templates: plain text files researchers can read and edit, filled with ``$names``.

``prompts/<name>.txt`` is the default; ``prompts/<domain>/<name>.txt`` overrides it for one
domain. ``string.Template`` (``$state``, ``${state}``) keeps the files free of code: nothing in a
template is evaluated, and a missing value is an error naming the template, not a silent blank.
A section whose value is empty is dropped together with its heading, so the model never reads
"Feedback: (nothing)" noise.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"


class PromptError(LookupError):
    pass


@cache
def _load(path: Path) -> Template:
    return Template(path.read_text(encoding="utf-8"))


def template_path(name: str, domain: str | None = None) -> Path:
    candidates = ([PROMPTS_DIR / domain / f"{name}.txt"] if domain else []) + [PROMPTS_DIR / f"{name}.txt"]
    for path in candidates:
        if path.is_file():
            return path
    raise PromptError(f"no prompt template {name!r} for domain {domain!r} (looked in {PROMPTS_DIR})")


def has_template(name: str, domain: str | None = None) -> bool:
    try:
        template_path(name, domain)
    except PromptError:
        return False
    return True


def render(name: str, domain: str | None = None, **values: object) -> str:
    path = template_path(name, domain)
    try:
        text = _load(path).substitute({key: "" if value is None else str(value) for key, value in values.items()})
    except KeyError as error:
        raise PromptError(f"template {path.name} needs a value for ${error.args[0]}") from None
    return tidy(text)


def section(title: str, body: str) -> str:
    """A titled block, or nothing when the body is empty."""
    body = body.strip()
    return f"{title}\n{body}" if body else ""


def tidy(text: str) -> str:
    """Collapse the blank lines left by empty sections."""
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def templates_for(domain: str) -> list[Path]:
    """Every template a domain's agents read (for the researchers' page)."""
    names = sorted({p.stem for p in PROMPTS_DIR.glob("*.txt")} | {p.stem for p in (PROMPTS_DIR / domain).glob("*.txt")})
    return [template_path(name, domain) for name in names]
