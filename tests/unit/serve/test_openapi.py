"""The published OpenAPI schema documents every endpoint's errors as problem details."""

from __future__ import annotations

from tests.serve_world import serving

PUBLIC = {"/v1/health", "/v1/ready"}


def test_every_endpoint_documents_its_errors_as_problems() -> None:
    """Each operation lists 422 and 500 (and 401/429 unless public), each a Problem body."""
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
        expected = {"500"} if path in PUBLIC else {"401", "422", "429", "500"}
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
