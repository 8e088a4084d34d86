"""The verbs of the tasks domain and the state words players read in feedback.

TimeArena describes every action by the state change it causes ("beef: unpicked -> picked"); the
dependency feedback tells a player what is missing in those words ("beef is unpicked"). This table
covers the verbs of the published data and of our bundled content; a verb missing here still works,
its feedback just falls back to "'<action>' is not done yet".
"""

from __future__ import annotations

# Appliances in the published data: shared between combined tasks, one per type 2 action using it.
DEFAULT_APPLIANCES: frozenset[str] = frozenset({"pot", "fryer", "oven"})

# verb -> (state once done, state before). Plural objects read a little stiffly; that is accepted.
VERB_STATES: dict[str, tuple[str, str]] = {
    "activate": ("activated", "not activated"),
    "bake": ("baked", "unbaked"),
    "boil": ("boiled", "unboiled"),
    "brew": ("brewed", "unbrewed"),
    "chop": ("chopped", "unchopped"),
    "clean": ("clean", "dirty"),
    "cook": ("cooked", "raw"),
    "cool": ("cooled", "still hot"),
    "crush": ("crushed", "uncrushed"),
    "crystallize": ("crystallized", "not crystallized"),
    "cut": ("cut", "uncut"),
    "dilute": ("diluted", "undiluted"),
    "dissolve": ("dissolved", "undissolved"),
    "dry": ("dried", "wet"),
    "dust": ("dusted", "dusty"),
    "empty": ("emptied", "full"),
    "fill": ("filled", "empty"),
    "filter": ("filtered", "unfiltered"),
    "find": ("found", "not found"),
    "fold": ("folded", "unfolded"),
    "fry": ("fried", "unfried"),
    "gather": ("gathered", "scattered"),
    "hang": ("hung up", "not hung up"),
    "hanging": ("hung up", "not hung up"),
    "heat": ("heated", "unheated"),
    "hoe": ("hoed", "unhoed"),
    "incubate": ("incubated", "not incubated"),
    "iron": ("ironed", "creased"),
    "knead": ("kneaded", "unkneaded"),
    "label": ("labelled", "unlabelled"),
    "load": ("loaded", "not loaded"),
    "make": ("made", "unmade"),
    "measure": ("measured", "unmeasured"),
    "mix": ("mixed", "unmixed"),
    "mop": ("mopped", "unmopped"),
    "peel": ("peeled", "unpeeled"),
    "pick": ("picked", "unpicked"),
    "plant": ("planted", "unplanted"),
    "polish": ("polished", "unpolished"),
    "proof": ("proofed", "unproofed"),
    "pull": ("pulled", "not pulled"),
    "remove": ("removed", "not removed"),
    "pour": ("poured", "not poured"),
    "read": ("read", "unread"),
    "rinse": ("rinsed", "unrinsed"),
    "run": ("run", "not run"),
    "scrape": ("scraped", "unscraped"),
    "serve": ("served", "not served"),
    "set_up": ("set up", "not set up"),
    "slice": ("sliced", "unsliced"),
    "soak": ("soaked", "dry"),
    "sort": ("sorted", "unsorted"),
    "spin": ("spun", "unspun"),
    "steep": ("steeped", "unsteeped"),
    "sterilize": ("sterile", "not sterile"),
    "stir": ("stirred", "unstirred"),
    "store": ("stored", "not stored"),
    "sweep": ("swept", "unswept"),
    "thaw": ("thawed", "frozen"),
    "toast": ("toasted", "untoasted"),
    "trim": ("trimmed", "untrimmed"),
    "vacuum": ("vacuumed", "unvacuumed"),
    "wash": ("clean", "dirty"),
    "water": ("watered", "unwatered"),
    "weed_with": ("used for weeding", "unused"),
    "weigh": ("weighed", "unweighed"),
    "wipe": ("wiped", "unwiped"),
}

# Verbs that put one thing somewhere: their state is a place ("rice is in dish").
PLACING_VERBS: frozenset[str] = frozenset({"add", "place", "put", "load", "pipette", "spread"})
# Verbs whose state only makes sense with their target ("kettle is poured into teapot").
TARGETED_VERBS: frozenset[str] = frozenset({"pour", "scrape", "dissolve", "soak"})

_PLACE_WORDS = {"to": "in", "into": "in", "in": "in", "on": "on", "onto": "on"}

KNOWN_VERBS: frozenset[str] = frozenset(VERB_STATES) | PLACING_VERBS


def plural(name: str) -> bool:
    """Whether an object's name reads as a plural ("towels", "tea_leaves"; not "mattress", "gas")."""
    word = name.rsplit("_", 1)[-1]
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "as"))


def state_sentences(verb: str, objects: tuple[str, ...], prep: str | None, text: str) -> tuple[str, str]:
    """(sentence once done, sentence before) for an action, e.g. ("beef is picked", "beef is unpicked");
    a plural object takes "are" ("towels are folded")."""
    subject = objects[0]
    be = "are" if plural(subject) else "is"
    if verb in PLACING_VERBS and len(objects) == 2:
        where = _PLACE_WORDS.get(prep or "", prep or "in")
        return f"{subject} {be} {where} {objects[1]}", f"{subject} {be} not {where} {objects[1]} yet"
    if verb in VERB_STATES:
        done, before = VERB_STATES[verb]
        if verb in TARGETED_VERBS and len(objects) == 2:
            return f"{subject} {be} {done} {prep} {objects[1]}", f"{subject} {be} {before} {prep} {objects[1]}"
        return f"{subject} {be} {done}", f"{subject} {be} {before}"
    return f"'{text}' is done", f"'{text}' is not done yet"
