"""The old spellings keep working: each alias runs the same command as its new name."""

import pytest

from srbf.cli import build_parser


@pytest.mark.parametrize("new, old", [
    (["methods", "check", "gplearn"], ["methods", "doctor", "gplearn"]),
    (["catalogs", "check", "nguyen"], ["catalogs", "validate", "nguyen"]),
    (["methods", "new", "m", "-o", "d"], ["new", "m", "--dir", "d"]),
])
def test_alias_parses_to_the_same_command(new, old):
    parser = build_parser()
    a, b = parser.parse_args(new), parser.parse_args(old)
    assert a.run is b.run
    assert {k: v for k, v in vars(a).items() if not k.endswith("_command") and k != "command"} == \
        {k: v for k, v in vars(b).items() if not k.endswith("_command") and k != "command"}
