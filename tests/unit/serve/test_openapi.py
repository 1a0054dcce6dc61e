"""The published OpenAPI schema documents every endpoint's errors as problem details."""

from __future__ import annotations

from redstring.serve import Limits
from tests.serve_world import serving

PUBLIC = {"/v1/health", "/v1/ready"}


def test_every_endpoint_documents_its_errors_as_problems() -> None:
    """Each operation lists 400, 413 and 500 (and 401/422/429 unless public), each a
    Problem body: whatever the server can answer, the schema says."""
    with serving() as (client, _):
        schema = client.get("/openapi.json").json()
    operations = [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) >= 18
    for path, method, operation in operations:
        responses = operation["responses"]
        expected = {"400", "413", "500"}
        if path not in PUBLIC:
            expected |= {"401", "422", "429"}
        assert expected <= set(responses), (method, path, sorted(responses))
        for status, response in responses.items():
            if status.startswith(("4", "5")):
                content = response["content"]
                assert "application/problem+json" in content, (method, path, status)
        assert operation.get("summary") or operation.get("description"), (method, path)


def test_the_schema_is_served_and_names_the_bearer_scheme() -> None:
    """Clients can find how to authenticate in the schema itself."""
    with serving() as (client, _):
        schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_the_schema_states_the_servers_own_limits() -> None:
    """k and limit, query and question length, batch size, text length, the length past
    which a document is a job: the bounds of the limits this server runs with, not of the
    defaults."""
    limits = Limits(
        max_page_size=7, max_query_chars=90, max_documents_per_batch=3, max_held_document_chars=900
    )
    with serving(limits=limits) as (client, world):
        schema = client.get("/openapi.json").json()
        max_chars = world.service.graph.settings.max_document_chars
    models = schema["components"]["schemas"]
    assert models["QueryIn"]["properties"]["k"]["maximum"] == 7
    assert models["QueryIn"]["properties"]["text"]["maxLength"] == 90
    assert models["AskIn"]["properties"]["question"]["maxLength"] == 90
    assert models["BatchIn"]["properties"]["documents"]["maxItems"] == 3
    assert models["DocumentIn"]["properties"]["text"]["maxLength"] == max_chars
    limit = next(
        parameter
        for parameter in schema["paths"]["/v1/sources"]["get"]["parameters"]
        if parameter["name"] == "limit"
    )
    assert limit["schema"]["maximum"] == 7
    for path in ("/v1/documents", "/v1/documents/file"):
        accepted = schema["paths"][path]["post"]["responses"]["202"]
        assert "over 900 characters" in accepted["description"], path
