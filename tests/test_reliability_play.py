"""``tdgammon play`` never loses what is saved: atomic .mat writes, failed saves
(a full disk, a file size limit) that leave the previous file whole and say why."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys

import pytest
from cli_runner import run

from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import format_mat, load_mat
from tdgammon.engine.interfaces.terminal import write_match
from tdgammon.engine.rules.errors import FormatError

PLAY = ["play", "--seed", "2", "--no-board", "--opponent", "random"]


def started_match() -> Match:
    match = Match(MatchSettings(max_games=2), names=("ann", "bob"), seed=1)
    match.game.opening_roll((3, 1))
    match.game.play_text("8/5 6/5")
    return match


def test_a_failed_save_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "m.mat"
    match = started_match()
    write_match(match, str(path))
    good = path.read_text(encoding="utf-8")
    match.game.roll((6, 4))
    match.game.play_text("24/14")

    def disk_full(handle):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("tdgammon.models.atomic.os.fsync", disk_full)
    with pytest.raises(FormatError, match=r"cannot save to .*m\.mat': No space left on device"):
        write_match(match, str(path))
    assert path.read_text(encoding="utf-8") == good  # the old record, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mat"]  # no temp file left
    assert format_mat(load_mat(path).match) == good


def test_the_save_at_the_end_failing_is_an_error_and_the_old_file_stays(
    tmp_path, monkeypatch, capsys
):
    path = tmp_path / "m.mat"
    status, _, err = run(
        capsys, *PLAY, "--save", str(path), stdin="save\n", monkeypatch=monkeypatch
    )
    assert status == 0, err
    good = path.read_text(encoding="utf-8")

    def disk_full(handle):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("tdgammon.models.atomic.os.fsync", disk_full)
    stdin = "save\nquit\n"
    status, out, err = run(capsys, *PLAY, "--save", str(path), stdin=stdin, monkeypatch=monkeypatch)
    assert "No space left on device" in out  # the save at the prompt said why ...
    assert "Session stopped." in out  # ... and play went on to the quit
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("tdgammon: error: cannot save to ") and "No space left" in err
    assert path.read_text(encoding="utf-8") == good


def _file_size_limit(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_file_size_limit_does_not_truncate_the_previous_file(tmp_path):
    """The review's case, for real: a save over the file size limit (RLIMIT_FSIZE)
    fails with a clear line and leaves the last good record as it was."""
    path = tmp_path / "big.mat"
    name = "n" * 1100  # the header alone is over the limit below
    match = Match(MatchSettings(max_games=1), names=(name, "random"), seed=2)
    match.game.opening_roll((3, 1))
    match.game.play_text("8/5 6/5")
    write_match(match, str(path))
    good = path.read_bytes()
    argv = [sys.executable, "-m", "tdgammon", *PLAY, "--name", name, "--save", str(path)]
    done = subprocess.run(
        argv,
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_file_size_limit(1024),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tdgammon: error: cannot save to ")
    assert "File too large" in done.stderr and done.stderr.count("\n") == 1
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.mat"]


def test_a_file_cut_short_does_not_load_as_a_game_in_progress(tmp_path, monkeypatch, capsys):
    path = tmp_path / "cut.mat"
    status, _, _ = run(capsys, *PLAY, "--save", str(path), stdin="13/5\n", monkeypatch=monkeypatch)
    assert status == 0
    text = path.read_text(encoding="utf-8")
    assert load_mat(path).match.game.phase != "over"  # saved in progress, it loads
    path.write_text(text[: text.index("; game in progress")], encoding="utf-8")
    with pytest.raises(FormatError, match=rf"^{path}: line \d+: game 1 has no result"):
        load_mat(path)
