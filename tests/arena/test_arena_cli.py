"""`srbf arena score`'s refusals: one line on stderr, exit status 2, nothing written."""

from __future__ import annotations

import pytest

from srbf.cli import main


def test_an_output_that_is_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "arena"
    target.write_text("not a folder")
    assert main(["arena", "score", "--results", str(tmp_path), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"srbf: error: {target}: exists and is not a directory\n"


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_bad_replicates_are_refused_by_the_parser(value, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["arena", "score", "--replicates", value])
    assert stop.value.code == 2
    assert "--replicates: must be a positive integer" in capsys.readouterr().err
