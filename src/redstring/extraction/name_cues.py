"""What the shape of a name says about its kind, for correcting a statistical recogniser.

A small recogniser trained on news reads unfamiliar names by their context and often guesses
the kind wrong ("Okafor Labs" as a person, "Kestrel Point" as an organisation). The words a
name is built from are stronger evidence than that guess: a name ending in "Ltd" or "Labs" is
an organisation, one ending in "Summit" or "Week" an event, one after "Dr." a person. These
cues are general English naming conventions, not knowledge of any corpus; every cue returns a
spaCy-style label (``ORG``, ``PERSON``, ``EVENT``, ``FAC``, ``PRODUCT``, ``WORK_OF_ART``, or
``SOFTWARE``, a label of this package's own for software and technologies) or
``None`` when the name's words say nothing. Pure: words in, label out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Final


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ORGANISATION_WORDS: Final = _words(
    """academy agency airlines airways analytics association authority bank bancorp board
    community team
    brewery capital chamber club co commission committee company consortium cooperative
    corp corporation council court department directorate energy enterprises federation firm
    foundation fund gazette gmbh group guild herald holdings inc incorporated industries
    institute institution journal laboratories laboratory labs league limited llc llp ltd
    ministry motors network networks nv observer partners partnership party plc police press
    school services society studio studios systems technologies times tribune trust union
    university ventures aerospace biotech consulting dynamics electric electronics financial
    foods mills works insurance logistics maritime media mining pharmaceuticals railways resources
    robotics shipping shipyards solutions telecom therapeutics utilities
    government administration parliament senate cabinet assembly army navy"""
)
"""Last words (or heads before "of") that make a name an organisation's."""

EVENT_WORDS: Final = _words(
    """awards championship championships conference congress convention cup exhibition expo
    fair festival forum games gala hackathon marathon olympics open regatta race rally
    summit symposium tournament war week weekend workshop
    battle siege invasion election elections referendum revolution uprising rebellion massacre"""
)
"""Last words (or heads before "of") that make a name an event's ("Tidewater Summit",
"Harbour Week", "Battle of Stamford Bridge")."""

DOCUMENT_WORDS: Final = _words(
    """cookbook glossary guide guidelines handbook howto manual primer questions reference
    specification tutorial"""
)
"""Last words that make a name a document's ("Python Library Reference", "Triage Guide",
"Frequently Asked Questions")."""

TECHNOLOGY_LAST_WORDS: Final = _words(
    """compiler database editor encoding format framework interpreter language library
    protocol standard toolkit"""
)
"""Last words that make a name a technology's ("Telnet Protocol", "Unicode Standard")."""

PLACE_LAST_WORDS: Final = _words(
    """airport avenue bay beach bridge canal cape center centre coast county creek district
    docks estate forest harbor harbour heights highlands hill hills island islands lake lane
    marina mountain mountains park peninsula plaza point province quay region river road
    sea square station strait street terrace tower valley village"""
)
"""Last words that make a name a place's ("Kestrel Point", "Harlow Exhibition Centre")."""

PLACE_FIRST_WORDS: Final = _words("cape fort lake mount port saint st")
"""First words that make a name a place's ("Port Harlow", "Mount Kenya")."""

PERSON_TITLES: Final = _words(
    """captain chancellor councillor councilman councilor councilwoman dame doctor dr judge lady
    lord madam mayor minister miss mr mrs ms mx president prof professor rev reverend senator
    sir"""
)
"""Titles that, right before a name, make it a person's ("Dr. Okafor", "Mayor Saarinen")."""

PRODUCT_NOUNS: Final = _words(
    """app application batteries battery chip chips console device devices drone engine
    handset line model models phone platform range processor product products robot sensor sensors
    service suite system systems tablet unit units vehicle"""
)
"""Common nouns a product name modifies ("the HarbourMind platform", "TideCell units")."""

SOFTWARE_NOUNS: Final = _words(
    """software library libraries module modules package packages framework toolkit tool tools
    command commands subcommand compiler interpreter editor browser database protocol protocols
    extension extensions plugin plugins kernel runtime api ide language format formats encoding
    encodings codec parser server client repository repositories distribution installer
    bindings binding wrapper shell script scripts syntax implementation specification spec"""
)
"""Common nouns a software or technology name modifies or stands in apposition with ("the
Tkinter module", "an SMTP server", "the UTF-8 encoding", "IDLE, an IDE")."""

WORK_NOUNS: Final = _words(
    """album article biography book chapter copy documentary edition essay film memoir movie
    novel paper play poem report series song study"""
)
"""Nouns that make the name they stand in apposition with, or govern, a work's title."""

BASED_NOUNS: Final = _words(
    """bank branch business company factory firm group insurer lender maker manufacturer office
    operator plant retailer start-up startup team utility yard"""
)
"""Organisation nouns a place name modifies ("the Aldmere software firm", "the Rotterdam
group"): the name says where the organisation is."""

ROLE_NOUNS: Final = _words(
    """analyst chair chairman chairwoman chief colleague councillor director economist engineer
    executive founder head journalist mayor minister officer partner president scientist
    secretary spokesman spokesperson spokeswoman"""
)
"""Nouns naming a person's role; a "place" in apposition with one is a person's name."""

_NAME_PREFIXES: Final = ("mc", "mac", "de", "di", "da", "la", "le", "van", "von", "o'")
_INITIAL: Final = re.compile(r"^[A-Z]\.$")
_CAMEL: Final = re.compile(r"[a-z][A-Z]")


def label_from_words(words: Sequence[str], before: str | None = None) -> str | None:
    """The label a name's own words imply, or ``None``.

    ``words`` are the name's tokens as written; ``before`` is the token right before it.
    Organisation words win over place words ("Port Harlow City Council" is an organisation).
    """
    if not words:
        return None
    lower = [word.lower().rstrip(".") for word in words]
    if lower[-1] in ORGANISATION_WORDS or _organisation_of(lower):
        return "ORG"
    if before is not None and before.lower().rstrip(".") in PERSON_TITLES:
        return "PERSON"
    if len(words) > 1 and _INITIAL.match(words[0]):
        return "PERSON"
    if len(lower) > 1 and (lower[-1] in EVENT_WORDS or _event_of(lower)):
        return "EVENT"
    if len(lower) > 1 and lower[-1] in DOCUMENT_WORDS:
        return "WORK_OF_ART"
    if len(lower) > 1 and lower[-1] in TECHNOLOGY_LAST_WORDS:
        return "SOFTWARE"
    if len(lower) > 1 and (lower[-1] in PLACE_LAST_WORDS or lower[0] in PLACE_FIRST_WORDS):
        return "FAC" if lower[-1] in {"centre", "center", "station", "airport"} else "LOC"
    return None


def _organisation_of(lower: list[str]) -> bool:
    """ "University of X", "Chamber of Commerce": an organisation word heading an "of"."""
    return any(
        word in ORGANISATION_WORDS and following == "of"
        for word, following in itertools.pairwise(lower)
    )


def _event_of(lower: list[str]) -> bool:
    """ "Battle of Stamford Bridge", "Siege of Leningrad": an event word opening an "of"."""
    return len(lower) > 2 and lower[0] in EVENT_WORDS and lower[1] == "of"


def is_coined(word: str) -> bool:
    """A single coined word with a capital inside it ("TideCell"), not a surname ("McKay")."""
    if not _CAMEL.search(word) or not word[:1].isupper():
        return False
    return not word.lower().startswith(_NAME_PREFIXES)


KIND_NOUNS: Final[dict[str, str]] = {
    **dict.fromkeys(
        _words(
            """actor actress singer songwriter musician rapper guitarist drummer bassist pianist
            composer writer author novelist poet playwright screenwriter journalist politician
            player footballer cricketer boxer wrestler athlete coach manager director producer
            filmmaker painter sculptor artist photographer architect designer engineer scientist
            physicist chemist mathematician economist philosopher historian lawyer judge soldier
            general admiral officer businessman businesswoman entrepreneur founder inventor
            programmer developer maintainer contributor comedian presenter host model dancer
            priest bishop king queen prince princess emperor president senator governor mayor
            minister chancellor diplomat activist broadcaster critic editor publisher teacher
            professor student man woman"""
        ),
        "PERSON",
    ),
    **dict.fromkeys(
        _words(
            """company corporation firm business band group duo trio quartet orchestra choir team
            club organization organisation institution university college school academy agency
            party union association society foundation charity label studio network broadcaster
            newspaper channel publisher manufacturer retailer airline bank brand chain
            conglomerate subsidiary startup start-up nonprofit ministry department council
            committee commission court army navy franchise"""
        ),
        "ORG",
    ),
    **dict.fromkeys(
        _words(
            """city town village country state county province region district municipality commune
            borough parish hamlet suburb neighbourhood neighborhood capital island archipelago
            river lake mountain peninsula valley desert continent nation kingdom republic
            territory metropolis settlement locality"""
        ),
        "GPE",
    ),
    **dict.fromkeys(
        _words(
            """film movie documentary album song single novel book novella series sitcom show
            programme program opera musical play poem painting sculpture episode miniseries
            anthology magazine comic manga anime soundtrack ep"""
        ),
        "WORK_OF_ART",
    ),
    **dict.fromkeys(
        _words(
            """war battle festival tournament championship election revolution conference summit
            expedition competition contest olympics storm hurricane typhoon cyclone earthquake
            outbreak"""
        ),
        "EVENT",
    ),
    **dict.fromkeys(
        _words(
            """software language library module package framework toolkit tool command compiler
            interpreter editor browser database protocol format extension plugin plug-in shell
            kernel runtime api ide standard encoding"""
        ),
        "SOFTWARE",
    ),
    **dict.fromkeys(
        _words(
            """app application platform system product device console engine game aircraft
            airliner biplane monoplane helicopter vehicle car automobile truck locomotive
            motorcycle smartphone"""
        ),
        "PRODUCT",
    ),
}
"""Common nouns that say what kind of thing a name is when they predicate it ("X is an
American actor", "X, a village in Y", "X is a programming language"), as the label of that
kind. Only the noun heading the predicate counts, never a modifier ("a film director" is a
person)."""
