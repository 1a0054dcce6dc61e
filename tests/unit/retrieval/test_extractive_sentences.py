"""Extractive answers quote sentences: how text is cut and which sentences are chosen."""

from __future__ import annotations

from uuid import uuid4

from redstring.domain.ids import ChunkId, SourceId
from redstring.retrieval.answers import best_sentences, sentences
from redstring.retrieval.results import RetrievedPassage


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
        passage("P1", "The harbour is busy. The harbour is old. Babbage was born in London."),
        passage("P2", "Babbage is a name. The harbour is large."),
    ]
    chosen = best_sentences("Where was Babbage born?", passages, 2)
    assert [(s.marker, s.text) for s in chosen] == [
        ("P1", "Babbage was born in London."),
        ("P2", "Babbage is a name."),
    ]


def test_an_equal_sentence_in_a_better_ranked_passage_wins() -> None:
    passages = [passage("P1", "Osaka has a port."), passage("P2", "Osaka has a port.")]
    chosen = best_sentences("Which port is in Osaka?", passages, 2)
    assert [s.marker for s in chosen] == ["P1", "P2"]
    assert chosen[0].score > chosen[1].score > 0


def test_with_no_question_word_held_each_passage_opens_the_answer() -> None:
    passages = [passage("P1", "Alpha one. Alpha two."), passage("P2", "Beta one. Beta two.")]
    chosen = best_sentences("zebra?", passages, 3)
    assert [(s.marker, s.text) for s in chosen] == [("P1", "Alpha one."), ("P2", "Beta one.")]
    assert best_sentences("zebra?", [], 3) == []


def test_a_long_sentence_does_not_win_by_holding_more_words_by_chance() -> None:
    """Both hold the rare words; the short, direct one ranks first (length-normalised)."""
    long_one = (
        "The review follows three firms, Okafor Labs, Halvard Maritime and Brinewater, the "
        "start-up that Jonah Whitlock founded in a rented garage, through a decade of change."
    )
    passages = [
        passage("P1", f"{long_one} Brinewater was founded by Jonah Whitlock."),
        passage("P2", "Nothing here."),
    ]
    chosen = best_sentences("Who founded Brinewater?", passages, 2)
    assert chosen[0].text == "Brinewater was founded by Jonah Whitlock."
