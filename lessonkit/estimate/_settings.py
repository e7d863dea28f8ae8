"""One signature per estimate: `estimate_*` takes exactly the settings its job's `checked` takes (lesson 05)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

Estimator = TypeVar("Estimator", bound=Callable[..., Any])


def settings(job: Any) -> list[inspect.Parameter]:
    """The keyword settings of `job.checked` with their defaults, a `**step` there read as check_step's (lesson 05)."""
    found: list[inspect.Parameter] = []
    for p in inspect.signature(job.checked).parameters.values():
        found += inspect.signature(job.check_step).parameters.values() if p.kind is p.VAR_KEYWORD else [p]
    return found


def takes_settings_of(job: Any) -> Callable[[Estimator], Estimator]:
    """Show and accept `(model, *, <the settings of job.checked>)` on `estimate_x(model, **settings)` (lesson 05)."""

    def decorate(estimator: Estimator) -> Estimator:
        own = inspect.signature(estimator)
        signature = own.replace(parameters=[own.parameters["model"], *settings(job)])

        @functools.wraps(estimator)
        def call(model: Any, **given: Any) -> Any:
            for name in given:
                if name not in signature.parameters:  # as Python says it for a function that lists its arguments
                    raise TypeError(f"{estimator.__name__}() got an unexpected keyword argument {name!r}")
            return estimator(model, **given)

        call.__signature__ = signature  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate
