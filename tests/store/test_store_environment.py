"""The machine and git facts a campaign records."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from srbf.store.environment import git_state, machine_info


def test_machine_info():
    info = machine_info()
    assert set(info) == {"hostname", "platform", "cpu_count", "python_version"}
    assert info["python_version"].startswith("3.")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_state(tmp_path):
    assert git_state(tmp_path) is None  # not a checkout

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("x = 1\n")
    assert git_state(package) is None  # nothing tracked there yet
    git("add", "pkg/mod.py")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "one")
    commit, dirty = git_state(package)
    assert len(commit) == 40 and dirty is False
    (package / "mod.py").write_text("x = 2\n")
    assert git_state(package) == (commit, True)
    (tmp_path / "untracked.txt").write_text("")  # untracked files do not make it dirty
    (package / "mod.py").write_text("x = 1\n")
    assert git_state(package) == (commit, False)
