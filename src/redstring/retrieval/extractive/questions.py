"""What a question asks, read from its words: content words, restatements, lists.

An extractive answer must not quote the question back (an FAQ's table of contents, a heading
that repeats it), and quotes more items when the question asks for several things.
"""

from __future__ import annotations

import re

from redstring.domain.chunk_ranking import tokenize

__all__ = ["asks_for_a_list", "content_words", "is_heading", "restates", "stem"]

_CLOSING = frozenset(".!?:;)\"'\u201d\u2019]")
_HEADING_WORDS = 8

_FUNCTION_WORDS = frozenset(
    {
        "a", "about", "above", "after", "all", "also", "am", "an", "and", "any", "are", "as",
        "at", "be", "been", "being", "both", "but", "by", "can", "could", "did", "do", "does",
        "doing", "done", "for", "from", "had", "has", "have", "having", "he", "her", "here",
        "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
        "no", "nor", "not", "of", "on", "or", "our", "ours", "she", "should", "so", "some",
        "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
        "this", "those", "through", "to", "too", "under", "up", "us", "very", "was", "we",
        "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why",
        "will", "with", "would", "you", "your",
    }
)  # fmt: skip

_LIST_HEADS = frozenset({"which", "what", "who", "list", "name", "give"})
_YES_NO_HEADS = frozenset(
    {"is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had",
     "will", "would", "should", "shall", "may", "might", "must"}
)  # fmt: skip
_NOT_PLURAL = re.compile(r"(ss|us|is|ous|ics)$")


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not function words."""
    return {word for word in tokenize(text) if word not in _FUNCTION_WORDS}


def is_heading(sentence: str) -> bool:
    """A title rather than a statement: a Markdown heading (``## ...``, as the document
    readers write titles), a line ending with a pilcrow (Sphinx), or a short run of words
    with no closing punctuation."""
    text = sentence.rstrip()
    if text.endswith("\u00b6") or text.lstrip().startswith("#"):
        return True
    return bool(text) and text[-1] not in _CLOSING and len(text.split()) <= _HEADING_WORDS


def restates(sentence: str, question: str) -> bool:
    """Whether ``sentence`` restates ``question`` rather than answering it: it is itself a
    question or a heading, or (unless the question asks yes or no) every content word it
    holds, numbers aside, is one of the question's."""
    if sentence.rstrip().endswith("?") or is_heading(sentence):
        return True
    words = tokenize(question)
    if words and words[0] in _YES_NO_HEADS:
        # A yes/no question is answered by a sentence saying what it asks.
        return False
    own = {word for word in content_words(sentence) if not word.isdigit()}
    return own <= content_words(question)


def asks_for_a_list(question: str) -> bool:
    """Whether ``question`` asks for several things: a wh-word (or "list", "name") followed,
    past "are", "were", "the", "all" and the like, by a plural noun ("Which methods...",
    "What are the kinds...", "Who are the founders...")."""
    words = tokenize(question)
    if not words or words[0] not in _LIST_HEADS:
        return False
    skip = {"are", "were", "the", "all", "of", "some", "main", "different", "two", "three"}
    for word in words[1:4]:
        if word in skip:
            continue
        if word in _YES_NO_HEADS:
            return False  # "What does ... do?", "Which is ...": one thing asked about
        return len(word) > 3 and word.endswith("s") and not _NOT_PLURAL.search(word)
    return False


def stem(word: str) -> str:
    """A crude stem, for deciding support only: "founders" holds "founder"."""
    for suffix, keep in (("ies", 5), ("es", 5), ("s", 4), ("ing", 6), ("ed", 5)):
        if word.endswith(suffix) and len(word) >= keep:
            return word[: -len(suffix)]
    return word
