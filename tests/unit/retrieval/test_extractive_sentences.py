"""Extractive answers quote sentences: how text is cut and which sentences are chosen."""

from __future__ import annotations

from uuid import uuid4

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Relationship
from redstring.retrieval.answers import supporting_facts
from redstring.retrieval.extractive import (
    BLOCK_CHARS,
    QuotedSentence,
    answer_sentences,
    asks_for_a_list,
    restates,
)
from redstring.retrieval.results import RetrievedPassage, RetrievedRelationship
from redstring.retrieval.sentences import sentences


def passage(marker: str, text: str) -> RetrievedPassage:
    return RetrievedPassage(
        marker=marker,
        chunk_id=ChunkId(f"{marker}-{uuid4().hex}"),
        source_id=SourceId(f"{marker}.md"),
        chunk_index=0,
        text=text,
        score=1.0,
        ranks={"lexical": 1},
    )


def test_titles_initials_and_abbreviations_do_not_end_a_sentence() -> None:
    text = (
        "Okafor Laboratories Ltd. makes batteries. It was founded by Dr. Adaeze Okafor. "
        "A. B. Smith joined in Jan. 2020! Did he stay? Yes."
    )
    assert sentences(text) == [
        "Okafor Laboratories Ltd. makes batteries.",
        "It was founded by Dr. Adaeze Okafor.",
        "A. B. Smith joined in Jan. 2020!",
        "Did he stay?",
        "Yes.",
    ]


def test_headings_are_left_out_and_blank_lines_end_a_sentence() -> None:
    text = "# Adaeze Okafor\n\nAn electrochemist\nfrom Lagos\n\n## Career\nShe founded a lab"
    assert sentences(text) == ["An electrochemist from Lagos", "She founded a lab"]


def test_the_sentence_holding_the_rare_question_words_comes_first() -> None:
    passages = [
        passage("P1", "The harbour is busy.\n\nThe harbour is old.\n\nBabbage was born in London."),
        passage("P2", "Babbage is a name.\n\nThe harbour is large."),
    ]
    chosen = answer_sentences("Where was Babbage born?", passages, limit=2)
    assert (chosen[0].marker, chosen[0].text) == ("P1", "Babbage was born in London.")


def test_an_equal_sentence_is_quoted_once_from_the_better_ranked_passage() -> None:
    """Overlapping passages hold the same sentence: it is quoted once, from the first."""
    said = "Osaka has the port of Sakai."
    passages = [passage("P1", said), passage("P2", said)]
    chosen = answer_sentences("Which port is in Osaka?", passages)
    assert [(s.marker, s.text) for s in chosen] == [("P1", said)]


def test_a_sentence_restating_the_question_is_never_quoted_and_lends_its_score_on() -> None:
    """An FAQ lists its questions before answering them: the list and the heading restate the
    question; the sentence under the heading is the answer."""
    faq = passage(
        "P1",
        "How do I copy an object in Python?\n\nHow do I convert a string to a number?\n\n"
        "How do I copy an object in Python?\n\n"
        "In general, try copy.copy() or copy.deepcopy() for the general case.",
    )
    chosen = answer_sentences("How do I copy an object in Python?", [faq])
    assert chosen
    assert chosen[0].text.startswith("In general, try copy.copy()")
    assert all(not s.text.endswith("?") for s in chosen)
    assert restates("5.2. The del statement", "What is the del statement?")
    assert not restates("The pass statement does nothing.", "What does the pass statement do?")
    assert not restates("Python is interpreted.", "Is Python interpreted?")


def test_sentences_come_from_every_passage_not_only_the_first_three() -> None:
    passages = [passage(f"P{n}", f"Filler number {n} talks about weather.") for n in range(1, 6)]
    passages.append(passage("P6", "Jonah Whitlock founded Brinewater in 2017."))
    chosen = answer_sentences("Who founded Brinewater?", passages)
    assert [s.marker for s in chosen] == ["P6"]


def test_with_nothing_holding_the_question_nothing_is_quoted() -> None:
    """No sentence holds enough of the question: not found, rather than filler."""
    passages = [passage("P1", "Alpha one. Alpha two."), passage("P2", "Beta one. Beta two.")]
    assert answer_sentences("Which zebra crossed?", passages) == []
    assert answer_sentences("zebra?", [], limit=3) == []


def test_a_list_question_gets_every_item_the_passages_give() -> None:
    """Five founders in five paragraphs: a list question quotes them all, a plain one three."""
    text = "\n\n".join(
        f"{name} was a founder of the Tidewater Guild." for name in ("Ada", "Bo", "Cy", "Di", "Ed")
    )
    passages = [passage("P1", text)]
    assert asks_for_a_list("Who were the founders of the Tidewater Guild?")
    assert not asks_for_a_list("Who founded the Tidewater Guild?")
    listed = answer_sentences("Who were the founders of the Tidewater Guild?", passages)
    assert len(listed) == 5
    single = answer_sentences("Who was a founder of the Tidewater Guild?", passages, limit=3)
    assert len(single) == 3


def test_a_long_sentence_does_not_win_by_holding_more_words_by_chance() -> None:
    """Both hold the rare words; the short, direct one ranks first (length-normalised)."""
    long_one = (
        "The review follows three firms, Okafor Labs, Halvard Maritime and Brinewater, the "
        "start-up that Jonah Whitlock founded in a rented garage, through a decade of change."
    )
    passages = [
        passage("P1", f"{long_one}\n\nBrinewater was founded by Jonah Whitlock."),
        passage("P2", "Nothing here."),
    ]
    chosen = answer_sentences("Who founded Brinewater?", passages, limit=2)
    assert chosen[0].text == "Brinewater was founded by Jonah Whitlock."


def test_a_short_paragraph_is_quoted_whole_and_a_long_one_by_its_sentence() -> None:
    """The sentence that answers often leans on the one before it ("The advantage is..."):
    a paragraph of at most BLOCK_CHARS is the unit quoted; a longer one quotes the sentence."""
    short = (
        "It is good practice to use the with keyword when dealing with file objects. The "
        "advantage is that the file is properly closed after its suite finishes."
    )
    chosen = answer_sentences("Why is the file properly closed?", [passage("P1", short)])
    assert [s.text for s in chosen] == [short]
    filler = " ".join(f"Sentence {n} talks about the weather in the harbour." for n in range(9))
    long_one = f"{filler} The file is properly closed by the with keyword. {filler}"
    assert len(long_one) > BLOCK_CHARS
    chosen = answer_sentences("Why is the file properly closed?", [passage("P1", long_one)])
    assert chosen[0].text == "The file is properly closed by the with keyword."


def test_a_term_comes_with_its_definition_and_a_colon_with_what_it_announces() -> None:
    """A definition list's term (``list.append(x)``) heads the definition quoted under it;
    a sentence ending with a colon brings the list items or code lines after it."""
    methods = passage(
        "P1",
        "list.append(x)\n\nAdd an item to the end of the list.\n\n"
        "list.clear()\n\nRemove all items from the list.",
    )
    chosen = answer_sentences("Which method adds an item to the end?", [methods])
    assert chosen[0].text == "list.append(x): Add an item to the end of the list."
    places = passage(
        "P1",
        "The search path is initialised from these locations:\n\n"
        "The directory containing the input script.\n\nPYTHONPATH, a list of directories."
        "\n\nThe installation-dependent default.\n\n7. Input and Output\u00b6\n\n"
        "Output is printed.",
    )
    chosen = answer_sentences("Where is the search path initialised from?", [places])
    assert chosen[0].text == (
        "The search path is initialised from these locations: The directory containing the "
        "input script. PYTHONPATH, a list of directories. The installation-dependent default."
    )


def test_a_sentence_and_the_paragraph_holding_it_are_quoted_once() -> None:
    """Overlapping passages cut a paragraph differently: the sentence alone and its whole
    paragraph would read twice, so the longer one is quoted, at the better place."""
    paragraph = "Python has an else clause on loops. It runs when no break occurs."
    passages = [
        passage("P1", "It runs when no break occurs."),
        passage("P2", paragraph),
    ]
    chosen = answer_sentences("When does the else clause of a loop run?", passages)
    assert [s.text for s in chosen] == [paragraph]
    assert not asks_for_a_list("What does the else clause of a for loop do?")


def test_a_graph_fact_supports_the_sentence_naming_both_its_ends() -> None:
    edge = Relationship(
        id=RelationshipId(uuid4()),
        type="FOUNDED",
        subject_id=EntityId(uuid4()),
        object_id=EntityId(uuid4()),
    )

    def fact(passages: tuple[str, ...]) -> RetrievedRelationship:
        return RetrievedRelationship(
            relationship=edge,
            subject_name="Jonah Whitlock",
            object_name="Brinewater",
            score=1.0,
            ranks={"graph": 1},
            passages=passages,
        )

    said = QuotedSentence("Jonah Whitlock founded Brinewater in 2017.", "P2", 1.0)
    other = QuotedSentence("Brinewater makes sensors.", "P2", 1.0)
    assert supporting_facts(said, [fact(("P2",))]) == [fact(("P2",))]
    assert supporting_facts(said, [fact(("P1",))]) == []
    assert supporting_facts(other, [fact(("P2",))]) == []


def test_a_heading_lends_the_sentences_under_it_some_of_its_score_not_all() -> None:
    """Under a heading that restates the question, an FAQ answer holding none of its words
    is quoted (it inherits); the first sentence under a heading naming the subject does not
    outrank the one that answers in the question's words (it inherits only HEADING_SHARE;
    with all of the heading's score it would, as it did on the Python FAQ)."""
    faq = passage("P1", "How do I delete a file?\u00b6\n\nUse os.remove(filename).")
    assert [s.text for s in answer_sentences("How do I delete a file?", [faq])] == [
        "Use os.remove(filename)."
    ]
    nested = passage(
        "P1",
        "Nested List Comprehensions\u00b6\n\nNested comprehensions are allowed.\n\n"
        "It consists of brackets containing an expression.\n\nTuples are ordered.",
    )
    chosen = answer_sentences("What does a nested list comprehension consist of?", [nested])
    assert chosen[0].text.endswith("It consists of brackets containing an expression.")
