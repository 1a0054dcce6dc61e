"""One name, one type: how votes across a document and its tenant settle a name's type."""

from __future__ import annotations

from redstring.domain.type_votes import settle_types


def test_the_majority_type_wins_and_the_minority_joins_it() -> None:
    """Three passages say Product, one Person: all four mentions are the Product."""
    assert settle_types(["Product", "Person", "Product", "Product"]) == {
        "Product": "Product",
        "Person": "Product",
    }


def test_the_tenant_votes_with_its_mentions_and_a_tie_goes_to_the_document() -> None:
    """A tenant entity weighs its mentions; on a tie the document's own first type wins, so a
    tenant's first guess does not outvote every later document."""
    assert settle_types(["Location"], {"Organization": 3}) == {
        "Location": "Organization",
        "Organization": "Organization",
    }
    assert settle_types(["Location"], {"Product": 1})["Product"] == "Location"


def test_a_second_type_stays_only_with_evidence_of_its_own() -> None:
    """Two or more votes and a third of the total keep a second type; a third type never."""
    settled = settle_types(["Person", "Location", "Person", "Location", "Event"])
    assert settled == {"Person": "Person", "Location": "Location", "Event": "Person"}
    assert settle_types(["Person"] * 5 + ["Location"] * 2)["Location"] == "Person"
