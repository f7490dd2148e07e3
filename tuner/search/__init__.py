"""Search strategies: small functions over a config space and a `measure(config) -> ms`.

Each strategy has the same signature, `fn(space, measure, *, initial=..., **options) ->
SearchResult`, and can be used on its own. A measurement that raises or returns inf/nan
scores infinity: the candidate is skipped and the search goes on.
"""
from tuner.search.base import SearchResult, Memo
from tuner.search.exhaustive import exhaustive
from tuner.search.coordinate_descent import coordinate_descent
from tuner.search.budgeted import budgeted, BudgetExhausted

STRATEGIES = {"exhaustive": exhaustive, "coordinate_descent": coordinate_descent,
              "budgeted": budgeted}


def get_strategy(name: str):
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown search strategy {name!r}; expected one of "
                         f"{', '.join(STRATEGIES)}") from None


__all__ = ["SearchResult", "Memo", "exhaustive", "coordinate_descent", "budgeted",
           "BudgetExhausted", "STRATEGIES", "get_strategy"]
