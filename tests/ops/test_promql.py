from __future__ import annotations

from tests.ops.promql import label_names, metric_names


def test_names_in_a_quantile_over_a_histogram() -> None:
    expr = ('histogram_quantile(0.99, sum by (game, le) '
            '(rate(airship_decide_seconds_bucket{game!="x"}[$__rate_interval])))')
    assert metric_names(expr) == {"airship_decide_seconds_bucket"}
    assert label_names(expr) == {"game", "le"}


def test_names_in_a_ratio_with_matchers_and_strings() -> None:
    expr = ('sum(rate(airship_commands_total{outcome="rejected", game=~"a|b"}[5m])) / '
            "sum without (instance) (rate(airship_commands_total[1h] offset 5m)) > bool 0")
    assert metric_names(expr) == {"airship_commands_total"}
    assert label_names(expr) == {"outcome", "game", "instance"}


def test_a_bare_selector_with_label_regex() -> None:
    assert metric_names('max by (partition) (airship_stream_lag{stream=~".*feed"})') == {"airship_stream_lag"}
    assert metric_names('{__name__="up"}') == set()
