"""Bearer-key authentication, role checks and rate limiting, as FastAPI dependencies.

``Authorization: Bearer amk_<id>_<secret>``. A missing, malformed, unknown or revoked key → 401
(``unauthorized``); a valid key whose role is too low → 403 (``forbidden``); too many requests for that key
→ 429 (``rate_limited``, with ``Retry-After``). The key's tenant is the only tenant the request can touch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..errors import AnchormemError
from .keys import ROLES, KeyStore, role_allows

__all__ = ["AuthenticationError", "PermissionDeniedError", "Principal", "require"]

_bearer = HTTPBearer(auto_error=False, description="An anchormem API key: `Authorization: Bearer amk_...`")


class AuthenticationError(AnchormemError):
    """No valid API key was presented (401)."""

    code = "unauthorized"


class PermissionDeniedError(AnchormemError):
    """The API key's role does not allow this operation (403)."""

    code = "forbidden"


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key id, its tenant and its role."""

    key_id: str
    tenant: str
    role: str


def require(role: str) -> Callable[..., Principal]:
    """A dependency that authenticates the request and checks the key has at least ``role``."""
    if role not in ROLES:  # pragma: no cover - programming error
        raise ValueError(role)

    def dependency(request: Request,
                   creds: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> Principal:
        if creds is None or not creds.credentials:
            raise AuthenticationError("missing API key: send 'Authorization: Bearer <key>'")
        keys: KeyStore = request.app.state.keys
        key = keys.verify(creds.credentials.strip())
        if key is None:
            raise AuthenticationError("invalid or revoked API key")
        limiter = request.app.state.limiter
        if limiter is not None:
            limiter.hit(key.id)
        if not role_allows(key.role, role):
            raise PermissionDeniedError(f"this API key has role {key.role!r}; this operation needs {role!r}")
        return Principal(key.id, key.tenant, key.role)

    dependency.__name__ = f"require_{role}"
    return dependency
