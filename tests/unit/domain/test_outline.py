"""The passage-text convention: heading paths and code lines."""

from __future__ import annotations

from redstring.domain.outline import code_lines, heading_paths

DOCUMENT = (
    "# Tutorial\n\nIntro text.\n\n## Modules\n\nModules hold code.\n\n"
    "```python\n# not a heading\nimport os\n```\n\n### Packages\n\nPackages hold modules.\n\n"
    "## Errors\n\nErrors happen."
)


def test_each_offset_gets_the_headings_in_force_outermost_first() -> None:
    """A passage's path is the stack of headings above it; a shallower heading pops deeper
    ones, and a ``#`` line inside a code block is no heading."""
    offsets = [
        DOCUMENT.index(marker)
        for marker in ("Intro", "Modules hold", "import", "Packages hold", "Errors happen")
    ]
    assert heading_paths(DOCUMENT, offsets) == [
        ("Tutorial",),
        ("Tutorial", "Modules"),
        ("Tutorial", "Modules"),
        ("Tutorial", "Modules", "Packages"),
        ("Tutorial", "Errors"),
    ]


def test_a_passage_that_opens_with_its_heading_is_in_that_section() -> None:
    """An offset on a heading line takes the path at the first line of prose after it."""
    assert heading_paths(DOCUMENT, [DOCUMENT.index("## Errors")]) == [("Tutorial", "Errors")]
    assert heading_paths("plain text only", [0]) == [()]


def test_a_passage_cut_inside_a_code_block_knows_its_first_lines_are_code() -> None:
    """A bare fence before any opening fence closes a block the document opened earlier; a
    hand-written pair of bare fences still pairs up."""
    inside = ["x = 1", "```", "Prose after.", "```python", "y = 2"]
    assert code_lines(inside) == [True, True, False, True, True]
    paired = ["Prose.", "```", "code", "```", "More prose."]
    assert code_lines(paired) == [False, True, True, True, False]
