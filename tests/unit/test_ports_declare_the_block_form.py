"""Every store capability declares the release trio; the provider ports deliberately do not.

The subject set is derived from the modules of ``redstring.ports``, so a new capability is
checked by being written rather than by someone remembering this file.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing

import pytest

import redstring.ports
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.extractor import Extractor
from redstring.ports.lifecycle import AsyncClosable
from redstring.ports.llm_provider import LlmProvider

NOT_CLOSABLE: frozenset[type] = frozenset({LlmProvider, EmbeddingProvider, Extractor})


def port_protocols() -> list[type]:
    """Every Protocol class defined in a ``redstring.ports`` module."""
    found: dict[str, type] = {}
    for info in pkgutil.iter_modules(redstring.ports.__path__):
        module = importlib.import_module(f"redstring.ports.{info.name}")
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and value.__module__ == module.__name__
                and getattr(value, "_is_protocol", False)
            ):
                found[f"{module.__name__}.{name}"] = value
    return [found[key] for key in sorted(found)]


CLOSABLE = [p for p in port_protocols() if p not in NOT_CLOSABLE and p is not AsyncClosable]


def test_the_derivation_finds_the_ports() -> None:
    """Guards the derivation itself: an empty subject set would pass everything below."""
    names = {p.__name__ for p in port_protocols()}
    assert {"GraphStore", "VectorStore", "ChunkStore", "Cache", "EventLog"} <= names
    assert {"EntityStore", "ChunkWriter", "HitWindow", "VectorPurge"} <= names
    assert len(CLOSABLE) >= 17


@pytest.mark.parametrize("protocol", CLOSABLE, ids=lambda p: p.__name__)
def test_capability_declares_the_block_form(protocol: type) -> None:
    """A store capability inherits ``AsyncClosable``: close, __aenter__ and __aexit__."""
    assert AsyncClosable in protocol.__mro__
    assert getattr(protocol, "_is_runtime_protocol", False), "ports are runtime_checkable"


def test_aexit_is_declared_to_return_none() -> None:
    """``-> None``, not ``-> bool``: a bool invites ``return True``, which eats exceptions."""
    hints = typing.get_type_hints(AsyncClosable.__aexit__)
    assert hints["return"] is type(None)


@pytest.mark.parametrize(
    "protocol", sorted(NOT_CLOSABLE, key=lambda p: p.__name__), ids=lambda p: p.__name__
)
def test_provider_ports_are_deliberately_not_closable(protocol: type) -> None:
    """Providers hold nothing to release: "not yet" and "deliberately not" stay distinct."""
    assert AsyncClosable not in protocol.__mro__
    assert not hasattr(protocol, "close")
    assert getattr(protocol, "_is_runtime_protocol", False)
