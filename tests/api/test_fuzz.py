"""Schemathesis against the served /openapi.json, over real HTTP on loopback: no 5xx, and every response matches
its documented schema and status codes. Bounded: at most 30 generated examples per operation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import (content_type_conformance, not_a_server_error,  # noqa: E402
                                 response_schema_conformance, status_code_conformance)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


from anchormem.server.app import create_app  # noqa: E402
from anchormem.server.keys import KeyStore  # noqa: E402


def _spec() -> dict:
    app = create_app(":memory:", embedder="hash", keys=KeyStore(":memory:"), rate_limit=None)
    return app.openapi()


# The schema of the app the server runs (test_served_schema_is_the_same checks it equals the served one); the
# calls go over HTTP to the live server.
SPEC = _spec()
schema = schemathesis.openapi.from_dict(SPEC)


def test_served_schema_is_the_same(api):
    import httpx

    assert httpx.get(api.url + "/openapi.json").json() == SPEC


@schema.parametrize()
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case, api):
    """An admin key of one tenant (so every operation is reachable); inputs are generated from the schema."""
    response = case.call(base_url=api.url, headers={"Authorization": f"Bearer {api.key[('acme', 'admin')]}"}, timeout=30)
    case.validate_response(response, checks=CHECKS)
    assert response.status_code < 500, response.text


@schema.parametrize()
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors_without_key(case, api):
    """Without a key every protected operation answers 401 (or 4xx for a malformed request), never 5xx."""
    response = case.call(base_url=api.url, timeout=30)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}


negative = schemathesis.openapi.from_dict(SPEC)
negative.config.generation.update(modes=[schemathesis.GenerationMode.NEGATIVE])


@negative.parametrize()
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_invalid_requests_get_4xx_envelope(case, api):
    """Requests that break the schema (wrong types, missing fields, out-of-range values) get a 4xx with the
    error envelope, never a 5xx."""
    response = case.call(base_url=api.url, headers={"Authorization": f"Bearer {api.key[('acme', 'admin')]}"},
                         timeout=30)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}, response.text
