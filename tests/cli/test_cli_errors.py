"""What the ``srbf`` command makes of an exception: srbf's own refusals (``SrbfError``) are the
user's input, one line and status 2; anything else is a bug in srbf, one line that says so and
where to report it, status 70, and the traceback only behind ``--debug``."""

from __future__ import annotations

import pytest

import srbf.catalogs.loader
from srbf.cli import BUG_REPORTS, main
from srbf.core import SrbfError
from srbf.stats import StatsError, combine_sets, holm


def _mistake():
    raise ValueError("could not convert string to float: 'x'")


def test_a_value_error_inside_srbf_is_reported_as_a_bug(monkeypatch, capsys):
    monkeypatch.setattr(srbf.catalogs.loader, "list_catalogs", _mistake)
    assert main(["catalogs", "list"]) == 70
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("srbf: error: this is a bug in srbf, not a mistake in your input")
    assert "ValueError: could not convert string to float: 'x'" in err
    assert BUG_REPORTS in err and "--debug" in err
    assert "Traceback" not in err


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setattr(srbf.catalogs.loader, "list_catalogs", _mistake)
    with pytest.raises(ValueError, match="could not convert"):
        main(["--debug", "catalogs", "list"])


def test_the_users_mistake_stays_one_line_with_status_2(capsys):
    assert main(["catalogs", "show", "nguyn", "Nguyen-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("srbf: error: unknown catalog 'nguyn'") and "bug" not in err


@pytest.mark.parametrize("call", [lambda: holm([0.5, 1.5]), lambda: combine_sets({})])
def test_statistics_refuse_their_input_as_srbf_errors(call):
    """The statistics' refusals are srbf's own errors (and still ValueErrors, as before)."""
    with pytest.raises(StatsError) as caught:
        call()
    assert isinstance(caught.value, SrbfError) and isinstance(caught.value, ValueError)


def test_an_unknown_problem_is_the_users_mistake(capsys):
    """``Catalog.entry`` raises UnknownProblem, an SrbfError (and a KeyError): no command has to
    catch KeyError to tell the user, so a KeyError from a bug is never mistaken for it."""
    assert main(["catalogs", "show", "nguyen", "nguyen-12"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "srbf: error: catalog 'nguyen' has no problem 'nguyen-12'; did you mean 'Nguyen-12'?"
