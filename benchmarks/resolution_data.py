"""A generated, gold-labelled record set for entity resolution: people and organisations.

``generate(seed, entities, scenario)`` draws ``entities`` real-world things and writes each as
one to five records with the noise real data carries: typos, transposed and missing tokens,
initials, nicknames, honorifics, legal suffixes, diacritics, case, swapped given and family
names, and missing, re-formatted or conflicting attributes. Hard negatives are drawn on
purpose: relatives sharing a surname and an address, namesakes (a common name drawn again),
and companies sharing a word of their name in one town.

Two scenarios: ``"full"`` gives records address, locality, postcode, date of birth (people)
and sometimes an identifier; ``"locality"`` gives names and a locality only.

Everything is drawn from ``random.Random(seed)``: the same seed gives the same records in the
same order. The records are import records (``KnowledgeGraph.import_records``); ``gold`` maps
each record's ``ref`` to the thing it describes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

Scenario = Literal["full", "locality"]

GIVEN = [
    "Robert",
    "William",
    "Elizabeth",
    "James",
    "Michael",
    "Katherine",
    "Margaret",
    "Thomas",
    "Richard",
    "Joseph",
    "Daniel",
    "David",
    "Christopher",
    "Jennifer",
    "Patricia",
    "Susan",
    "Rebecca",
    "Samuel",
    "Benjamin",
    "Edward",
    "Andrew",
    "Anthony",
    "Nicholas",
    "Stephen",
    "Matthew",
    "Alexander",
    "Victoria",
    "Jessica",
    "Charles",
    "Henry",
    "Amara",
    "Chidi",
    "Ngozi",
    "Emeka",
    "Wei",
    "Mei",
    "Priya",
    "Aarav",
    "Ananya",
    "Rohan",
    "José",
    "María",
    "Lucía",
    "Javier",
    "François",
    "Amélie",
    "Zoë",
    "Björn",
    "Søren",
    "Łukasz",
    "Zofia",
    "Siobhán",
    "Seán",
    "Mohammed",
    "Fatima",
    "Omar",
    "Aisha",
    "Yusuf",
    "Hiroshi",
    "Yuki",
    "Olga",
    "Dmitri",
    "Ingrid",
    "Lars",
    "Giulia",
    "Marco",
    "Chiara",
    "Nadia",
    "Tariq",
    "Grace",
    "Olivia",
    "Emily",
    "Hannah",
    "Laura",
    "Sarah",
    "Rachel",
    "Helen",
    "Paul",
    "Mark",
    "Simon",
    "Peter",
    "Ian",
    "Kevin",
]

SURNAMES = [
    *[
        "Smith",
        "Jones",
        "Williams",
        "Brown",
        "Taylor",
        "Davies",
        "Wilson",
        "Evans",
        "Thomas",
        "Johnson",
        "Roberts",
        "Walker",
        "Wright",
        "Robinson",
        "Thompson",
        "White",
        "Hughes",
        "Edwards",
        "Green",
        "Hall",
        "Wood",
        "Harris",
        "Lewis",
        "Martin",
        "Jackson",
        "Clarke",
        "Clark",
        "Turner",
        "Hill",
        "Scott",
        "Cooper",
        "Morris",
        "Ward",
        "Moore",
        "King",
        "Watson",
        "Baker",
        "Harrison",
        "Morgan",
        "Patel",
        "Young",
        "Allen",
        "Mitchell",
        "James",
        "Anderson",
        "Phillips",
        "Lee",
        "Bell",
        "Parker",
        "Okafor",
        "Okonkwo",
        "Adeyemi",
        "Nwosu",
        "Nguyen",
        "Tran",
        "García",
        "Fernández",
        "Müller",
        "Schäfer",
        "Kowalski",
        "Nowak",
        "Wiśniewski",
        "O'Brien",
        "O'Connor",
        "MacDonald",
        "McKenzie",
        "Singh",
        "Kaur",
        "Sharma",
        "Gupta",
        "Khan",
        "Ahmed",
        "Hussain",
        "Kim",
        "Park",
        "Chen",
        "Wang",
        "Li",
        "Zhang",
        "Yamamoto",
        "Tanaka",
        "Novák",
        "Dvořák",
        "Ødegaard",
        "Johansson",
        "Lindqvist",
        "Ibáñez",
        "Núñez",
        "Rossi",
        "Bianchi",
        "Esposito",
        "Dubois",
        "Lefèvre",
        "Fontaine",
        "Kovačević",
        "Horvat",
        "Petrov",
        "Ivanova",
        "Schmidt",
        "Fischer",
        "Weber",
        "Becker",
        "Hoffmann",
        "Janssen",
        "Bakker",
        "Visser",
        "Murphy",
        "Kelly",
        "Byrne",
        "Walsh",
        "Doyle",
        "Quinn",
        "Fitzgerald",
    ],
    *["de Vries", "van Dijk", "Ruiz Ortega", "da Silva"],
]

# Real name lists are long-tailed: the commonest surname is about 1% of people, the commonest
# given name about 3%. The named lists above hold the common and the diverse; compound
# surnames ("Ashworth", "Blackwood") fill the tail so that two unrelated people rarely share
# a full name and a town by chance, as in real registers.
_SURNAME_HEADS = [
    "Ash",
    "Black",
    "Brad",
    "Brook",
    "Cald",
    "Clay",
    "Cole",
    "Cross",
    "Dun",
    "Fair",
    "Fox",
    "Gold",
    "Green",
    "Hart",
    "Hay",
    "Hol",
    "Kings",
    "Lang",
    "Lind",
    "Mar",
    "Mid",
    "North",
    "Oak",
    "Pen",
    "Red",
    "Rock",
    "Rud",
    "Shel",
    "Sher",
    "South",
    "Stan",
    "Stock",
    "Thorn",
    "Wake",
    "Wal",
    "West",
    "Whit",
    "Wind",
    "Wood",
    "Bright",
    "Brom",
    "Car",
    "Chad",
    "Cran",
    "Dal",
    "Ed",
    "Hal",
    "Marl",
]
_SURNAME_TAILS = [
    "worth",
    "wood",
    "ley",
    "ford",
    "field",
    "ton",
    "by",
    "well",
    "bridge",
    "combe",
    "dale",
    "hurst",
    "more",
    "ham",
    "wick",
    "stone",
    "croft",
    "shaw",
    "brook",
    "land",
    "gate",
    "hill",
    "wright",
    "man",
    "sby",
    "ington",
]
SURNAMES_TAIL = [head + tail for head in _SURNAME_HEADS for tail in _SURNAME_TAILS]

GIVEN_TAIL = [
    "Abel",
    "Ada",
    "Adele",
    "Agnes",
    "Aidan",
    "Alan",
    "Alice",
    "Alma",
    "Amos",
    "Anita",
    "Arlo",
    "Arthur",
    "Astrid",
    "Beatrice",
    "Bruno",
    "Caleb",
    "Carla",
    "Cecil",
    "Celia",
    "Clara",
    "Colin",
    "Cora",
    "Cyril",
    "Dara",
    "Delia",
    "Dennis",
    "Diana",
    "Dora",
    "Douglas",
    "Edith",
    "Elena",
    "Elias",
    "Elise",
    "Elmer",
    "Emil",
    "Enid",
    "Erin",
    "Esme",
    "Ethan",
    "Eva",
    "Felix",
    "Fiona",
    "Flora",
    "Frank",
    "Gavin",
    "Gemma",
    "Gideon",
    "Gordon",
    "Greta",
    "Hazel",
    "Hector",
    "Hugo",
    "Ida",
    "Imogen",
    "Irene",
    "Isaac",
    "Ivan",
    "Ivy",
    "Jasper",
    "Joan",
    "Jonah",
    "Judith",
    "June",
    "Karen",
    "Keith",
    "Kirsten",
    "Lena",
    "Leon",
    "Lionel",
    "Lola",
    "Lorna",
    "Luca",
    "Mabel",
    "Malcolm",
    "Marcus",
    "Martha",
    "Maya",
    "Miles",
    "Miriam",
    "Nell",
    "Nora",
    "Norman",
    "Oscar",
    "Otto",
    "Pearl",
    "Quentin",
    "Rhoda",
    "Rita",
    "Roland",
    "Rosa",
    "Rufus",
    "Ruth",
    "Selma",
    "Silas",
    "Stella",
    "Tessa",
    "Theo",
    "Ursula",
    "Vera",
    "Wanda",
    "Wendy",
]


def _long_tail(rng: random.Random, head: list[str], tail: list[str]) -> str:
    """Either the named list, Zipf-weighted, or the tail, uniform (55%)."""
    if rng.random() < 0.55:
        return tail[rng.randrange(len(tail))]
    weights = [1 / (rank + 3) ** 0.8 for rank in range(len(head))]
    return rng.choices(head, weights=weights)[0]


NICKNAMES = {
    "Robert": ["Bob", "Rob", "Bobby"],
    "William": ["Bill", "Will", "Billy"],
    "Elizabeth": ["Liz", "Beth", "Lizzie"],
    "James": ["Jim", "Jimmy", "Jamie"],
    "Michael": ["Mike", "Mick"],
    "Katherine": ["Kate", "Kathy", "Katie"],
    "Margaret": ["Maggie", "Peggy", "Meg"],
    "Thomas": ["Tom", "Tommy"],
    "Richard": ["Rick", "Dick", "Rich"],
    "Joseph": ["Joe", "Joey"],
    "Daniel": ["Dan", "Danny"],
    "David": ["Dave"],
    "Christopher": ["Chris"],
    "Jennifer": ["Jen", "Jenny"],
    "Patricia": ["Pat", "Trish"],
    "Susan": ["Sue", "Susie"],
    "Rebecca": ["Becky", "Becca"],
    "Samuel": ["Sam"],
    "Benjamin": ["Ben"],
    "Edward": ["Ed", "Ted", "Eddie"],
    "Andrew": ["Andy", "Drew"],
    "Anthony": ["Tony"],
    "Nicholas": ["Nick"],
    "Stephen": ["Steve"],
    "Matthew": ["Matt"],
    "Alexander": ["Alex"],
    "Victoria": ["Vicky"],
    "Jessica": ["Jess"],
    "Charles": ["Charlie", "Chuck"],
    "Henry": ["Harry", "Hal"],
}

LOCALITIES = [
    "London",
    "Wolverhampton",
    "Sunderland",
    "Middlesbrough",
    "Blackpool",
    "Bournemouth",
    "Huddersfield",
    "Peterborough",
    "Colchester",
    "Chelmsford",
    "Warrington",
    "Stockport",
    "Salford",
    "Gloucester",
    "Worcester",
    "Cheltenham",
    "Harrogate",
    "Shrewsbury",
    "Lancaster",
    "Inverness",
    "Stirling",
    "Perth",
    "Wrexham",
    "Newport",
    "Manchester",
    "Birmingham",
    "Leeds",
    "Glasgow",
    "Sheffield",
    "Bristol",
    "Liverpool",
    "Edinburgh",
    "Cardiff",
    "Leicester",
    "Coventry",
    "Nottingham",
    "Newcastle",
    "Brighton",
    "Hull",
    "Plymouth",
    "Stoke",
    "Derby",
    "Southampton",
    "Portsmouth",
    "Swansea",
    "Aberdeen",
    "Dundee",
    "Oxford",
    "Cambridge",
    "York",
    "Exeter",
    "Bath",
    "Norwich",
    "Ipswich",
    "Lincoln",
    "Carlisle",
    "Durham",
    "Chester",
    "Preston",
    "Bolton",
    "Reading",
    "Luton",
    "Slough",
]

STREETS = [
    "Elm",
    "Oak",
    "Maple",
    "Cedar",
    "Birch",
    "Willow",
    "Station",
    "Church",
    "Mill",
    "Park",
    "High",
    "Victoria",
    "Albert",
    "Queen",
    "King",
    "Manor",
    "Grange",
    "Orchard",
    "Meadow",
    "Bridge",
    "Market",
    "Castle",
    "Abbey",
    "Chapel",
    "Garden",
    "Springfield",
    "Richmond",
    "Windsor",
    "Kingsway",
    "Broadway",
    "Highfield",
    "Woodland",
    "Riverside",
    "Hillside",
    "Beech",
    "Ash",
    "Holly",
    "Rowan",
    "Hawthorn",
    "Chestnut",
    "Poplar",
    "Sycamore",
    "Laurel",
    "Juniper",
    "Heather",
]

STREET_TYPES = {
    "Street": "St",
    "Road": "Rd",
    "Avenue": "Ave",
    "Lane": "Ln",
    "Close": "Cl",
    "Drive": "Dr",
    "Court": "Ct",
    "Way": "Way",
}

ORG_WORDS = [
    "Northwind",
    "Bluefin",
    "Harbor",
    "Quill",
    "Summit",
    "Granite",
    "Beacon",
    "Meridian",
    "Falcon",
    "Cobalt",
    "Aurora",
    "Horizon",
    "Pinnacle",
    "Evergreen",
    "Silverline",
    "Redwood",
    "Lighthouse",
    "Keystone",
    "Atlas",
    "Orion",
    "Vertex",
    "Nimbus",
    "Sterling",
    "Crescent",
    "Riverstone",
    "Oakridge",
    "Ironbridge",
    "Westgate",
    "Eastfield",
    "Kingfisher",
]

ORG_TRADES = [
    "Logistics",
    "Systems",
    "Foods",
    "Partners",
    "Consulting",
    "Engineering",
    "Holdings",
    "Trading",
    "Software",
    "Analytics",
    "Energy",
    "Pharma",
    "Textiles",
    "Media",
    "Construction",
    "Capital",
    "Insurance",
    "Bakery",
]

LEGAL = {"Ltd": "Limited", "PLC": "Public Limited Company", "LLC": "L.L.C.", "Inc": "Inc."}

HONORIFICS = ("Mr", "Mrs", "Ms", "Dr", "Prof", "Mr.", "Dr.")


@dataclass
class Thing:
    """One real-world person or organisation: the truth every record of it is drawn from."""

    cluster: int
    type: str
    given: str = ""
    middle: str = ""
    family: str = ""
    org_words: list[str] = field(default_factory=list)
    legal: str = ""
    dob: tuple[int, int, int] | None = None
    house: int = 1
    street: str = ""
    street_type: str = "Street"
    locality: str = ""
    postcode: str = ""
    identifier: str = ""


@dataclass
class RecordSet:
    """Import records in a shuffled order, and the gold cluster of each record's ref."""

    records: list[dict[str, object]]
    gold: dict[str, int]
    things: int


def _zipf(rng: random.Random, items: list[str], exponent: float = 0.9) -> str:
    weights = [1 / (rank + 1) ** exponent for rank in range(len(items))]
    return rng.choices(items, weights=weights)[0]


def _postcode(rng: random.Random, locality: str) -> str:
    area = locality[:2].upper()
    letters = "ABDEFGHJLNPQRSTUWXYZ"
    inward = f"{rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"
    return f"{area}{rng.randint(1, 29)} {inward}"


def _address(rng: random.Random, thing: Thing) -> None:
    thing.house = rng.randint(1, 180)
    thing.street = rng.choice(STREETS)
    thing.street_type = rng.choice(list(STREET_TYPES))
    thing.postcode = _postcode(rng, thing.locality)


def _person(rng: random.Random, cluster: int) -> Thing:
    thing = Thing(cluster=cluster, type="Person")
    thing.given = _long_tail(rng, GIVEN, GIVEN_TAIL)
    thing.middle = rng.choice(GIVEN + GIVEN_TAIL) if rng.random() < 0.4 else ""
    thing.family = _long_tail(rng, SURNAMES, SURNAMES_TAIL)
    thing.dob = (rng.randint(1940, 2005), rng.randint(1, 12), rng.randint(1, 28))
    thing.locality = _zipf(rng, LOCALITIES, 0.8)
    _address(rng, thing)
    thing.identifier = (
        f"{rng.choice('ABCEGHJKLMNPRSTWXYZ')}{rng.choice('ABCEGHJKLMNPRSTWXYZ')}"
        f"{rng.randint(0, 999999):06d}{rng.choice('ABCD')}"
    )
    return thing


def _relative(rng: random.Random, cluster: int, of: Thing) -> Thing:
    """Same surname and address, another given name and date of birth."""
    thing = _person(rng, cluster)
    thing.family, thing.locality, thing.postcode = of.family, of.locality, of.postcode
    thing.house, thing.street, thing.street_type = of.house, of.street, of.street_type
    while thing.given == of.given:
        thing.given = rng.choice(GIVEN + GIVEN_TAIL)
    assert of.dob is not None
    year = of.dob[0] + rng.choice([-30, -28, -3, -2, -1, 1, 2, 3, 27, 31])
    thing.dob = (year, rng.randint(1, 12), rng.randint(1, 28))
    return thing


def _namesake(rng: random.Random, cluster: int, of: Thing) -> Thing:
    """The same given and family name, otherwise another person (often the same town)."""
    thing = _person(rng, cluster)
    thing.given, thing.family = of.given, of.family
    if rng.random() < 0.25:
        thing.locality = of.locality
        thing.postcode = _postcode(rng, thing.locality)
    return thing


def _organisation(rng: random.Random, cluster: int, siblings: list[Thing]) -> Thing:
    thing = Thing(cluster=cluster, type="Organization")
    if siblings and rng.random() < 0.15:
        # A company sharing its first word with another, in the same town: a hard negative.
        other = rng.choice(siblings)
        thing.org_words = [other.org_words[0], rng.choice(ORG_TRADES)]
        thing.locality = other.locality
    else:
        # Registers hold few exact namesakes: most firms carry a founder's or a coined name.
        words = [rng.choice(ORG_WORDS) if rng.random() < 0.3 else rng.choice(SURNAMES_TAIL)]
        if rng.random() < 0.3:
            words.append(rng.choice(ORG_WORDS))
        words.append(rng.choice(ORG_TRADES))
        thing.org_words = words
        thing.locality = _zipf(rng, LOCALITIES, 0.8)
    thing.legal = rng.choice(list(LEGAL))
    _address(rng, thing)
    thing.identifier = f"{rng.randint(10_000_000, 99_999_999)}"
    return thing


def _typo(rng: random.Random, word: str) -> str:
    if len(word) < 4:
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1 :]
    if kind == 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 2:
        return word[:i] + rng.choice("aeiourstnl") + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def _strip_accents(text: str) -> str:
    import unicodedata

    folded = unicodedata.normalize("NFKD", text)
    return (
        "".join(ch for ch in folded if not unicodedata.combining(ch))
        .replace("ł", "l")
        .replace("ø", "o")
        .replace("Ø", "O")
        .replace("Ł", "L")
    )


def _person_name(rng: random.Random, thing: Thing) -> str:
    given = thing.given
    draw = rng.random()
    if draw < 0.12:
        given = f"{given[0]}."
    elif draw < 0.26 and given in NICKNAMES:
        given = rng.choice(NICKNAMES[given])
    elif draw < 0.33:
        given = _typo(rng, given)
    family = _typo(rng, thing.family) if rng.random() < 0.08 else thing.family
    middle = ""
    if thing.middle:
        draw = rng.random()
        middle = thing.middle if draw < 0.35 else f"{thing.middle[0]}." if draw < 0.55 else ""
    order = rng.random()
    if order < 0.07:
        name = f"{family}, {given}" + (f" {middle}" if middle else "")
    elif order < 0.10:
        name = f"{family.upper()} {given}"
    else:
        name = " ".join(part for part in (given, middle, family) if part)
    if rng.random() < 0.1:
        name = f"{rng.choice(HONORIFICS)} {name}"
    if rng.random() < 0.02:
        name = f"{name} Jr"
    return _case_and_accents(rng, name)


def _org_name(rng: random.Random, thing: Thing) -> str:
    words = list(thing.org_words)
    if len(words) > 1 and rng.random() < 0.12:
        words = words[:-1]
    if rng.random() < 0.07:
        i = rng.randrange(len(words))
        words[i] = _typo(rng, words[i])
    draw = rng.random()
    legal = thing.legal if draw < 0.45 else LEGAL[thing.legal] if draw < 0.7 else ""
    name = " ".join([*words, legal]).strip()
    if rng.random() < 0.08:
        name = f"The {name}"
    return _case_and_accents(rng, name)


def _case_and_accents(rng: random.Random, name: str) -> str:
    if rng.random() < 0.4:
        name = _strip_accents(name)
    draw = rng.random()
    if draw < 0.07:
        return name.upper()
    if draw < 0.12:
        return name.lower()
    return name


def _date_text(rng: random.Random, dob: tuple[int, int, int]) -> str:
    year, month, day = dob
    noise = rng.random()
    if noise < 0.03:
        digits = list(f"{year:04d}{month:02d}{day:02d}")
        i = rng.choice([3, 5, 7])
        digits[i] = str((int(digits[i]) + rng.randint(1, 8)) % 10)
        text = "".join(digits)
        year, month, day = int(text[:4]), int(text[4:6]) or 1, int(text[6:]) or 1
        month = min(month, 12)
    elif noise < 0.05 and day <= 12:
        month, day = day, month
    months = "January February March April May June July August September October November December"
    if rng.random() < 0.5:
        return f"{year:04d}-{month:02d}-{day:02d}"
    if rng.random() < 0.6:
        return f"{day:02d}/{month:02d}/{year:04d}"
    return f"{day} {months.split()[month - 1]} {year}"


def _address_text(rng: random.Random, thing: Thing) -> str:
    street_type = thing.street_type
    if rng.random() < 0.35:
        street_type = STREET_TYPES[street_type]
    street = _typo(rng, thing.street) if rng.random() < 0.05 else thing.street
    text = f"{thing.house} {street} {street_type}"
    if rng.random() < 0.05:
        text = f"Flat {rng.randint(1, 9)}, {text}"
    return text.upper() if rng.random() < 0.05 else text


def _attributes(rng: random.Random, thing: Thing, scenario: Scenario) -> dict[str, object]:
    attributes: dict[str, object] = {}
    locality = _typo(rng, thing.locality) if rng.random() < 0.03 else thing.locality
    if rng.random() < 0.92:
        attributes["locality"] = locality
    if scenario == "locality":
        return attributes
    moved = rng.random() < 0.03
    if moved:
        other = Thing(cluster=-1, type=thing.type, locality=thing.locality)
        _address(rng, other)
        attributes["address"] = _address_text(rng, other)
        attributes["postcode"] = other.postcode
    else:
        if rng.random() < 0.92:
            attributes["address"] = _address_text(rng, thing)
        if rng.random() < 0.85:
            postcode = thing.postcode
            if rng.random() < 0.04:
                postcode = postcode[:-1] + rng.choice("ABDEFGHJLNPQRSTUWXYZ")
            attributes["postcode"] = postcode.replace(" ", "") if rng.random() < 0.3 else postcode
    if thing.dob is not None and rng.random() < 0.92:
        attributes["date_of_birth"] = _date_text(rng, thing.dob)
    if rng.random() < (0.3 if thing.type == "Person" else 0.4):
        identifier = thing.identifier
        if rng.random() < 0.02:
            identifier = _typo(rng, identifier)
        attributes["identifier"] = identifier
    return attributes


def generate(seed: int, entities: int, scenario: Scenario = "full") -> RecordSet:
    """Records of ``entities`` things (about 70% people), shuffled; deterministic per seed."""
    rng = random.Random(seed)
    things: list[Thing] = []
    people: list[Thing] = []
    firms: list[Thing] = []
    for cluster in range(entities):
        draw = rng.random()
        if draw < 0.3:
            thing = _organisation(rng, cluster, firms)
            firms.append(thing)
        else:
            if people and draw < 0.42:
                thing = _relative(rng, cluster, rng.choice(people))
            elif people and draw < 0.44:
                thing = _namesake(rng, cluster, rng.choice(people))
            else:
                thing = _person(rng, cluster)
            people.append(thing)
        things.append(thing)
    records: list[dict[str, object]] = []
    gold: dict[str, int] = {}
    for thing in things:
        size = rng.choices([1, 2, 3, 4, 5], weights=[35, 25, 20, 12, 8])[0]
        for _ in range(size):
            ref = f"r{len(records)}"
            name = _person_name(rng, thing) if thing.type == "Person" else _org_name(rng, thing)
            records.append(
                {
                    "kind": "entity",
                    "ref": ref,
                    "type": thing.type,
                    "name": name,
                    "attributes": _attributes(rng, thing, scenario),
                    "source": "bench",
                }
            )
            gold[ref] = thing.cluster
    rng.shuffle(records)
    return RecordSet(records=records, gold=gold, things=len(things))


def pairwise_scores(
    predicted: dict[str, object], gold: dict[str, int]
) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 of ``predicted`` (ref -> cluster) against ``gold``."""
    from collections import Counter

    cells = Counter((predicted[ref], gold[ref]) for ref in gold)
    predicted_sizes = Counter(predicted[ref] for ref in gold)
    gold_sizes = Counter(gold.values())

    def pairs(counter: Counter[object]) -> int:
        return sum(n * (n - 1) // 2 for n in counter.values())

    true_pairs = pairs(cells)  # type: ignore[arg-type]
    predicted_pairs = pairs(predicted_sizes)
    gold_pairs = pairs(gold_sizes)  # type: ignore[arg-type]
    precision = true_pairs / predicted_pairs if predicted_pairs else 1.0
    recall = true_pairs / gold_pairs if gold_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
