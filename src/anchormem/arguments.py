"""Argument errors of the public API as :class:`~anchormem.errors.ArgumentError`.

Python itself refuses a call whose arguments do not fit the signature (a misspelt keyword, a missing required
argument, one positional too many) with a bare ``TypeError``, before any of the library's code runs. The public
classes (:class:`~anchormem.Memory`, :class:`~anchormem.AsyncMemory`) are decorated with :func:`checked_arguments`,
which turns exactly those errors into :class:`~anchormem.errors.ArgumentError` (an ``AnchormemError`` and still a
``TypeError``), naming the method and, for a misspelt keyword, the parameter it was probably meant to be
(``sesion_id`` -> ``session_id``). A ``TypeError`` raised inside a method is left alone. The happy path pays one
``try``; the signature is bound only after a ``TypeError``.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import ArgumentError

__all__ = ["checked_arguments"]

C = TypeVar("C", bound=type)
_UNEXPECTED = re.compile(r"unexpected keyword argument '([^']+)'")


def _explain(name: str, sig: inspect.Signature, exc: TypeError) -> str:
    text = str(exc)
    message = f"{name}(): {text.split('() ', 1)[-1] if '() ' in text else text}"
    m = _UNEXPECTED.search(text)
    if m:
        params = [p for p in sig.parameters if p != "self"]
        close = difflib.get_close_matches(m.group(1), params, n=1, cutoff=0.6)
        message += f"; did you mean {close[0]!r}?" if close else f"; parameters: {', '.join(params)}"
    return message


def _checked(attr: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError as exc:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                owner = type(args[0]).__name__ if args else fn.__qualname__.split(".")[0]
                raise ArgumentError(_explain(owner if attr == "__init__" else f"{owner}.{attr}", sig, exc)) from None
            raise

    return wrapper


def checked_arguments(cls: C) -> C:
    """Class decorator: every public method ``cls`` defines, and its ``__init__``, raises
    :class:`~anchormem.errors.ArgumentError` when called with arguments that do not fit its signature (the method
    named as ``<the instance's class>.<method>``). Decorate each class of a hierarchy that defines public methods
    (a mixin too): methods stay where they are defined."""
    for attr, value in list(vars(cls).items()):
        if (attr.startswith("_") and attr != "__init__") or not inspect.isfunction(value):
            continue
        setattr(cls, attr, _checked(attr, value))
    return cls
