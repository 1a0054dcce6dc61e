"""Blocking keys: likely duplicates of a name collide under a key of the same entity type."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.blocking import (
    MAX_KEYS_PER_NAME,
    attribute_keys,
    blocking_keys,
    lookup_keys,
    normalise_name,
    soundex,
)
from redstring.domain.errors import EmptyTextError, InvalidArgumentError


class TestNormaliseName:
    """Case, accents and punctuation never make two spellings of a name differ."""

    @pytest.mark.parametrize(
        ("name", "normalised"),
        [
            ("ACME Corp.", "acme corp"),
            ("  José   Müller-Lüdenscheidt ", "jose muller ludenscheidt"),
            ("O'Brien, Seán", "o brien sean"),
            ("Straße", "strasse"),
            ("snake_case_name", "snake case name"),
            ("\uff26\uff55\uff4c\uff4c", "full"),  # fullwidth letters
            ("Łódź", "lodz"),
            ("Øresund Æther", "oresund aether"),
            ("R2-D2", "r2 d2"),
        ],
    )
    def test_names_fold_to_plain_lowercase_words(self, name: str, normalised: str) -> None:
        """Accents stripped, Latin letters folded to ASCII, punctuation a single separator."""
        assert normalise_name(name) == normalised

    @pytest.mark.parametrize(
        ("name", "normalised"), [("Москва", "москва"), ("東京都", "東京都"), ("Αθήνα", "αθηνα")]
    )
    def test_names_in_other_scripts_keep_their_letters(self, name: str, normalised: str) -> None:
        """A name without Latin letters still has letters; it used to raise EmptyTextError."""
        assert normalise_name(name) == normalised

    @pytest.mark.parametrize("name", ["!!!", "", "   ", "--_--", "¡¿…"])
    def test_a_name_without_letters_or_digits_is_an_empty_text_error(self, name: str) -> None:
        """Nothing to derive keys from; the message quotes the name."""
        with pytest.raises(EmptyTextError, match="no letters or digits"):
            normalise_name(name)

    def test_the_error_is_a_value_error(self) -> None:
        """Bad input is a ``ValueError`` and an ``InvalidArgumentError``."""
        assert issubclass(EmptyTextError, InvalidArgumentError)
        assert issubclass(EmptyTextError, ValueError)

    @given(st.text(min_size=1))
    def test_normalising_is_idempotent(self, name: str) -> None:
        """A normalised name normalises to itself: single spaces, no edges, nothing to fold."""
        try:
            once = normalise_name(name)
        except EmptyTextError:
            return
        assert normalise_name(once) == once
        assert once == " ".join(once.split())
        assert once == once.casefold()


class TestSoundex:
    """American Soundex, including the H/W rule and the first-letter rule."""

    @pytest.mark.parametrize(
        ("token", "code"),
        [
            ("robert", "R163"),
            ("rupert", "R163"),
            ("rubin", "R150"),
            ("tymczak", "T522"),  # z after c shares a code; the vowel a then separates c and k
            ("pfister", "P236"),  # f shares the first letter's code and is dropped
            ("ashcraft", "A261"),  # c after h shares s's code: h does not separate
            ("ashcroft", "A261"),
            ("honeyman", "H555"),  # vowels separate equal codes, so n, m, n all count
            ("jackson", "J250"),
            ("gutierrez", "G362"),
            ("lee", "L000"),
            ("lloyd", "L300"),
            ("bhatt", "B300"),
            ("washington", "W252"),
        ],
    )
    def test_known_codes(self, token: str, code: str) -> None:
        """Published reference values."""
        assert soundex(token) == code

    def test_spelling_variants_share_a_code(self) -> None:
        """That is the point of the phonetic key."""
        assert soundex("jon") == soundex("john") == "J500"
        assert soundex("smith") == soundex("smyth") == "S530"

    def test_digits_and_other_scripts_pass_through(self) -> None:
        """Soundex is defined for Latin letters only; anything else is its own key."""
        assert soundex("1984") == "1984"
        assert soundex("москва") == "москва"

    @given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=20))
    def test_codes_are_a_letter_and_three_digits(self, token: str) -> None:
        """Always four characters: the token's first letter, then digits."""
        code = soundex(token)
        assert len(code) == 4
        assert code[0] == token[0].upper()
        assert code[1:].isdigit()


class TestBlockingKeys:
    """Three key families (n:, s:, p:), namespaced by entity type."""

    def test_keys_of_a_simple_name(self) -> None:
        """The whole name, sorted tokens, phonetic codes, initial keys, k: keys and its ends."""
        assert blocking_keys("Person", "Ada Lovelace") == (
            "Person|f:ada",
            "Person|f:lovelace",
            "Person|i:A300 l",
            "Person|i:L142 a",
            "Person|k:A300 lo",
            "Person|k:L142 ad",
            "Person|n:ada lovelace",
            "Person|p:A300 L142",
            "Person|s:ada lovelace",
        )

    def test_word_order_does_not_matter_for_the_sorted_key(self) -> None:
        """'Smith, John' and 'John Smith' meet under s:."""
        first = set(blocking_keys("Person", "Smith, John"))
        second = set(blocking_keys("Person", "John Smith"))
        assert "Person|s:john smith" in first & second
        assert "Person|n:smith john" in first - second

    def test_spelling_variants_meet_under_a_phonetic_key(self) -> None:
        """'Jon Smyth' and 'John Smith' share the p: key although their n: and s: keys differ."""
        shared = set(blocking_keys("Person", "Jon Smyth")) & set(
            blocking_keys("Person", "John Smith")
        )
        assert {key for key in shared if "|p:" in key} == {"Person|p:J500 S530"}
        assert not {key for key in shared if "|n:" in key or "|s:" in key}

    def test_stop_words_are_left_out_of_the_sorted_and_phonetic_keys(self) -> None:
        """'The ACME Corp.' and 'ACME' meet (and as an acronym); n: still keeps every word."""
        keys = blocking_keys("Organisation", "The ACME Corp.")
        assert "Organisation|n:the acme corp" in keys
        assert set(keys) & set(blocking_keys("Organisation", "ACME")) == {
            "Organisation|s:acme",
            "Organisation|p:A250",
            "Organisation|a:acme",
            "Organisation|o:acme",
        }

    def test_a_name_made_only_of_stop_words_still_has_keys(self) -> None:
        """With nothing significant left, every token counts."""
        assert "Organisation|s:co the" in blocking_keys("Organisation", "The Co")

    def test_keys_are_namespaced_by_entity_type(self) -> None:
        """A person and a city of the same name never block together."""
        person = blocking_keys("Person", "Paris")
        city = blocking_keys("City", "Paris")
        assert not set(person) & set(city)
        assert all(key.startswith("Person|") for key in person)
        assert all(key.startswith("City|") for key in city)

    def test_keys_are_sorted_and_distinct(self) -> None:
        """A repeated word yields its keys once, in a stable order."""
        keys = blocking_keys("Person", "Anna Anna")
        assert list(keys) == sorted(set(keys))

    def test_a_name_in_another_script_has_keys(self) -> None:
        """Names need not be Latin to be resolved."""
        assert "City|n:москва" in blocking_keys("City", "Москва")

    def test_a_name_with_no_letters_is_an_empty_text_error(self) -> None:
        """'!!!' gives nothing to block on."""
        with pytest.raises(EmptyTextError, match="'!!!'"):
            blocking_keys("Person", "!!!")

    @given(st.text(alphabet="abcdeiklmnorstuyzéèüñçåøł ,.-'", min_size=1, max_size=30))
    def test_case_and_accents_never_change_the_keys(self, name: str) -> None:
        """Upper-casing a name, or dropping its accents, leaves its keys as they were."""
        try:
            keys = blocking_keys("Person", name)
        except EmptyTextError:
            return
        plain = name.translate(str.maketrans("éèüñçåøł", "eeuncaol"))
        assert blocking_keys("Person", name.upper()) == keys
        assert blocking_keys("Person", plain) == keys


def meet(left: str, right: str, entity_type: str = "Person") -> set[str]:
    """Keys under which ``right`` (stored) is found when ``left`` is looked up, both ways."""
    one = set(lookup_keys(entity_type, left)) & set(blocking_keys(entity_type, right))
    two = set(lookup_keys(entity_type, right)) & set(blocking_keys(entity_type, left))
    return one | two


class TestRecallFamilies:
    """Each variation real data carries still brings the two names under a shared key."""

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("A. Okafor", "Amara Okafor"),  # initial
            ("Okafor, A.", "Dr. Amara N. Okafor"),  # swapped, initial, title, middle initial
            ("Bob Smith", "Robert Smith"),  # nickname
            ("Liz Taylor", "Elizabeth Taylor"),
            ("Bill Okafor", "William Okafor"),
            ("Dr. José Müller", "Jose Muller"),  # title, diacritics
            ("Amara Okafor", "Amara Ngozi Okafor"),  # token subset
            ("Fatimma Tayylor", "Faima Taylor"),  # a typo in each token
            ("Jon Smyth", "John Smith"),  # phonetic
            ("Okafor", "Amara Okafor"),  # a surname alone
        ],
    )
    def test_person_variants_meet(self, left: str, right: str) -> None:
        """Looked up either way, the stored variant is among the candidates."""
        assert meet(left, right)

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("ACME Widgets Ltd", "Acme Widgets Limited"),  # legal suffix
            ("Northwind Bakery Public Limited Company", "Northwind Bakery PLC"),
            ("The Acme L.L.C.", "Acme"),
            ("Westgate", "Westgate Foods Inc"),  # one word of the name
            ("IBM", "International Business Machines"),  # acronym
        ],
    )
    def test_organisation_variants_meet(self, left: str, right: str) -> None:
        """Legal forms, articles, a shortened name and acronyms do not hide a company."""
        assert meet(left, right, "Organization")

    def test_a_full_name_never_looks_up_the_broad_initial_bucket(self) -> None:
        """'Amara Okafor' reads j: (abbreviations of itself), not i: (every A-something Okafor)."""
        lookups = lookup_keys("Person", "Amara Okafor")
        assert not [key for key in lookups if "|i:" in key]
        assert "Person|j:O216 a" in lookups
        assert "Person|i:O216 a" in lookup_keys("Person", "A. Okafor")

    def test_numbers_are_never_left_out_or_initialled(self) -> None:
        """'Unit 7 Holdings' and 'Unit 9 Holdings' share no key but phonetic word codes."""
        shared = meet("Unit 7 Holdings", "Unit 9 Holdings", "Organization")
        assert not shared

    def test_long_names_meet_through_a_word_pair_they_keep(self) -> None:
        """Two spellings of a long name that share neither their ends nor their sorted words
        meet under a b: key (an adjacent pair of words both keep)."""
        left = "Board of Trustees of the Leland Stanford Junior University"
        right = "Leland Stanford Junior University Board of Trustees"
        shared = meet(left, right, "Organization")
        assert "Organization|b:leland stanford" in shared
        assert not [key for key in blocking_keys("Person", "Ada Lovelace") if "|b:" in key]

    @given(st.text(alphabet="abcdefghijklmnop .,-'", min_size=1, max_size=60))
    def test_a_name_yields_a_bounded_number_of_keys(self, name: str) -> None:
        """However long the name, stored and lookup keys stay within MAX_KEYS_PER_NAME."""
        try:
            stored = blocking_keys("Person", name)
        except EmptyTextError:
            return
        assert 1 <= len(stored) <= MAX_KEYS_PER_NAME
        assert len(lookup_keys("Person", name)) <= MAX_KEYS_PER_NAME


class TestAttributeKeys:
    """Full dates of birth and identifiers are keys of their own."""

    def test_dates_and_identifiers_give_keys_in_normal_form(self) -> None:
        """'07/03/1980' and '1980-03-07' give one key; a bare year gives none."""
        assert attribute_keys("Person", {"dob": "07/03/1980", "passport": "ab 123-456"}) == (
            "Person|d:1980-03-07",
            "Person|x:identifier=AB123456",
        )
        assert attribute_keys("Person", {"born": "1980", "city": "Leeds"}) == ()

    def test_attribute_keys_are_typed_and_bounded(self) -> None:
        """Namespaced by type, and at most four however many identifiers a record has."""
        many = {f"email{i}": f"x{i}@example.org" for i in range(3)}
        many.update({"email": "a@b.co", "phone": "+44 20 7946 0958", "dob": "1980-01-01"})
        keys = attribute_keys("Organization", many)
        assert all(key.startswith("Organization|") for key in keys)
        assert len(keys) <= 4
