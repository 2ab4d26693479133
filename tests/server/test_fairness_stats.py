"""The fairness page's chi-square p-value, in closed form, against SciPy's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2, chisquare

from dicehall.server.domain.dice.fairness import chi_square, chi_square_survival


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(0, 5000), min_size=6, max_size=6).filter(any))
def test_chi_square_matches_scipy(counts: list[int]) -> None:
    found = chi_square(counts)
    expected = chisquare(counts)
    assert found is not None
    assert found[0] == pytest.approx(float(expected.statistic), rel=1e-12, abs=1e-12)
    assert found[1] == pytest.approx(float(expected.pvalue), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("degrees", [1, 3, 5, 7, 9])
def test_survival_matches_scipy_for_odd_degrees(degrees: int) -> None:
    for x in (0.0, 0.01, 0.5, 1.0, 4.0, 11.07, 30.0, 120.0):
        assert chi_square_survival(x, degrees) == pytest.approx(
            float(chi2.sf(x, degrees)), rel=1e-10, abs=1e-300
        )
    with pytest.raises(ValueError):
        chi_square_survival(1.0, 4)
