"""Hostile standard input for every command that reads it (issue 19).

Batch mode (``tdgammon moves|hint|eval|cube|rollout -``): every line that is
not blank, whatever it holds (any JSON value, NaN, 1e400, a 5,000-digit
integer, 100,000-deep nesting, bytes that are not UTF-8), gets exactly one
output line of strict JSON, and the stream goes on; the command never ends
with an internal error (exit status 3). UBGI: every line of arbitrary bytes gets
its protocol answer or ``sorry`` (docs/formats.md), never a crash.

Standard input is fed as bytes under a strict UTF-8 decoder, the way
``PYTHONIOENCODING=utf-8:strict`` sets it up. The quick forms run a few
examples each; set ``TDGAMMON_CHAOS_GAMES`` (the chaos tests' variable) to run
that many examples per test instead.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys

import pytest
from cli_runner import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

START = "4HPwATDgc/ABMA"
POSITIONS = [
    START,
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
    "XGID=-b----E-C---eE---c-e----B-:1:1:-1:D:2:1:0:5:10",
    f"{START}:cAkAAAAAAAAA",
    "AAAAwP8fAAAAAA",  # the opponent has borne off every checker: the game is over
    "AAAAAAAAAAAAAA",  # nobody has a checker left: impossible
    "board:You:Opp:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0",
]
"""Good, finished and impossible positions in every format."""

CHAOS = os.environ.get("TDGAMMON_CHAOS_GAMES")
FUZZ = settings(
    max_examples=int(CHAOS) if CHAOS else 30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""A few examples per test; TDGAMMON_CHAOS_GAMES examples for a long fuzzing run."""

BATCH_COMMANDS = {
    "moves": [],
    "hint": ["--plies", "0"],
    "eval": ["--plies", "0"],
    "cube": ["--plies", "0"],
    "rollout": ["--trials", "2", "--plies", "0", "--truncate", "4"],
}
"""Each batch command with options that keep a line cheap."""

EVERY = frozenset(BATCH_COMMANDS)
READ_DICE = EVERY
READ_PLIES = EVERY
DECIDE = frozenset({"moves", "hint", "cube", "rollout"})
"""The commands that refuse bad ``dice``, bad ``plies``, and a finished game (nothing to
decide or roll out). Every command checks ``dice`` (``eval`` and ``cube`` then ignore
them) and ``plies`` is an unknown key to ``moves`` (docs/formats.md, batch mode)."""

HOSTILE_LINES = [
    (f'{{"position": "{START}", "dice": [1e400, 2]}}', EVERY),
    (f'{{"position": "{START}", "dice": [-1e400, 2]}}', EVERY),
    (f'{{"position": "{START}", "dice": [Infinity, 2]}}', EVERY),
    (f'{{"position": "{START}", "dice": [NaN, 2]}}', EVERY),
    (f'{{"position": "{START}", "plies": -Infinity}}', EVERY),
    (f'{{"position": "{START}", "dice": [{"9" * 5000}, 2]}}', EVERY),
    (f'{{"position": "{START}", "plies": {"1" * 101}}}', EVERY),
    ("[" * 100_000 + "]" * 100_000, EVERY),
    ('{"position": ' + "[" * 500 + "]" * 500 + "}", EVERY),
    (f'{{"position": "{START}", "dice": [5.9, 2]}}', READ_DICE),
    (f'{{"position": "{START}", "dice": [true, true]}}', READ_DICE),
    (f'{{"position": "{START}", "dice": ["5", "2"]}}', READ_DICE),
    (f'{{"position": "{START}", "dice": {{"0": 5, "1": 2}}}}', READ_DICE),
    (f'{{"position": "{START}", "dice": "52"}}', READ_DICE),
    (f'{{"position": "{START}", "dice": [5, 2, 1]}}', READ_DICE),
    (f'{{"position": "{START}", "dice": [0, 7]}}', READ_DICE),
    (f'{{"position": "{START}", "dice": [5, 2], "plies": 2.0}}', READ_PLIES),
    (f'{{"position": "{START}", "dice": [5, 2], "plies": false}}', READ_PLIES),
    ('{"position": "AAAAAAAAAAAAAA", "dice": [5, 2]}', EVERY),
    ('{"position": "AAAAwP8fAAAAAA", "dice": [5, 2]}', DECIDE),
    ('{"position": "\\ud800"}', EVERY),
    ('{"position": null}', EVERY),
    ('{"position": 42}', EVERY),
    ('{"position": "' + "A" * 100_000 + '"}', EVERY),
    ('"just a string"', EVERY),
    ("[]", EVERY),
    ("0", EVERY),
    ("true", EVERY),
    ("null", EVERY),
    ("{", EVERY),
    ("\x00\x01", EVERY),
]
"""Lines that once stopped batch mode or were read as something they were not, each
with the commands that must answer it ``{"error"}`` (the others ignore what is bad)."""

NOT_UTF8_LINES = [b"\xff\xfe", b'{"position": "\xc3"}', b"\xed\xa0\x80", b"\xe9t\xe9"]
"""Lines that are not UTF-8: a bad byte, a cut sequence, an encoded surrogate, Latin-1."""


def run_bytes(capsys, monkeypatch, data: bytes, *argv):
    """``tdgammon *argv`` with ``data`` as standard input, decoded strictly as UTF-8."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    return run(capsys, *argv)


def _refuse_constant(name: str):
    """``json.loads`` of the output: NaN and the infinities are not strict JSON."""
    raise AssertionError(f"{name} in the output is not JSON")


def answered_lines(data: bytes) -> int:
    """How many answers batch mode owes ``data``: one per line that is not blank
    (an undecodable line is not blank)."""
    count = 0
    for raw in data.split(b"\n"):
        try:
            count += bool(raw.decode("utf-8").strip())
        except UnicodeDecodeError:
            count += 1
    return count


def check_batch(capsys, monkeypatch, command: str, data: bytes) -> list[dict]:
    """Run batch ``command`` on ``data``; check one strict JSON object per line and a
    clean exit; return the answers."""
    status, out, err = run_bytes(capsys, monkeypatch, data, command, "-", *BATCH_COMMANDS[command])
    assert status == 0, err
    assert "internal error" not in err and "Traceback" not in err
    answers = [json.loads(line, parse_constant=_refuse_constant) for line in out.splitlines()]
    assert len(answers) == answered_lines(data)
    assert all(isinstance(a, dict) and a for a in answers)
    return answers


# ---------------------------------------------------------------- batch mode

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)
"""Any JSON value, and NaN and the infinities, which ``json.dumps`` writes too."""


def requests(command: str):
    """Request objects: a real position most of the time, the other fields of any value."""
    optional = {"dice": st.lists(st.integers(0, 7), min_size=2, max_size=2) | json_values}
    if command != "rollout":  # a 3-ply rollout is not a quick test
        optional["plies"] = st.integers(-1, 4) | json_values
    position = st.sampled_from(POSITIONS) | st.sampled_from(POSITIONS) | json_values
    return st.fixed_dictionaries({"position": position}, optional=optional)


def batch_input(command: str):
    """Lines of a batch run as bytes: requests (half of them), JSON of any value, any
    text, bytes that are not UTF-8."""
    text = (
        requests(command).map(json.dumps)
        | requests(command).map(json.dumps)
        | json_values.map(json.dumps)
        | st.text(max_size=30).map(lambda t: t.replace("\n", " "))
    ).map(lambda text: text.encode("utf-8", "surrogatepass"))
    line = text | text | text | st.sampled_from(NOT_UTF8_LINES)
    return st.lists(line, min_size=1, max_size=6).map(lambda lines: b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_hostile_lines_get_one_error_each_and_the_stream_goes_on(
    capsys, monkeypatch, pipcount, command
):
    good = json.dumps({"position": POSITIONS[1]}).encode()  # moves/hint: its dice, 52
    lines = [(text.encode("utf-8", "surrogatepass"), refused) for text, refused in HOSTILE_LINES]
    lines += [(line, EVERY) for line in NOT_UTF8_LINES]
    data = b"".join(line + b"\n" + good + b"\n" for line, _ in lines)
    answers = check_batch(capsys, monkeypatch, command, data)
    for index, (line, refused) in enumerate(lines):
        reply, after = answers[2 * index], answers[2 * index + 1]
        assert "error" not in after, (line[:60], after)
        assert (set(reply) == {"error"}) == (command in refused), (line[:60], reply)


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_arbitrary_json_lines_get_one_answer_each(capsys, monkeypatch, pipcount, command):
    @FUZZ
    @given(data=batch_input(command))
    def check(data):
        check_batch(capsys, monkeypatch, command, data)

    check()


# ---------------------------------------------------------------- UBGI

UBGI_WORDS = ["ubgi", "isready", "stop", "UBGI", " isready "]
UBGI_ANSWERS = {"sorry", "double", "roll", "take", "drop", "beaver", "raccoon", "", "readyok"}
UBGI_STEP = re.compile(r"(bar|[1-9]|1[0-9]|2[0-4])/(off|[1-9]|1[0-9]|2[0-4])")


def ubgi_answers_owed(lines: list[bytes]) -> int:
    """How many answer lines UBGI owes ``lines`` (docs/formats.md): the handshake
    four, a blank line or ``stop`` none, anything else one; nothing after ``quit``."""
    owed = 0
    for raw in lines:
        try:
            word = raw.decode("utf-8").strip().lower()
        except UnicodeDecodeError:
            word = "not text"
        if word == "quit":
            break
        owed += {"ubgi": 4, "": 0, "stop": 0}.get(word, 1)
    return owed


def check_ubgi_answer(answer: str) -> None:
    """An answer of the protocol: a word of its table, or a play written out step by step."""
    if answer in UBGI_ANSWERS or answer.startswith("id "):
        return
    assert all(UBGI_STEP.fullmatch(step) for step in answer.split()), answer


ubgi_lines = (
    st.binary(max_size=40)
    | st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass"))
    | st.sampled_from(POSITIONS + UBGI_WORDS).map(str.encode)
    | st.sampled_from(NOT_UTF8_LINES)
    | st.tuples(
        st.sampled_from(POSITIONS), st.integers(0, 80), st.binary(min_size=1, max_size=3)
    ).map(lambda t: t[0].encode()[: t[1]] + t[2] + t[0].encode()[t[1] :])
).map(lambda raw: raw.replace(b"\n", b""))
"""Arbitrary bytes, text, protocol words, positions and positions with bytes put in."""


def test_arbitrary_bytes_on_ubgi_are_answered_line_by_line(capsys, monkeypatch, pipcount):
    @FUZZ
    @given(lines=st.lists(ubgi_lines, min_size=1, max_size=8))
    def check(lines):
        lines = [*lines, b"isready", b"quit", b"ubgi"]
        data = b"".join(line + b"\n" for line in lines)
        status, out, err = run_bytes(capsys, monkeypatch, data, "ubgi", "--plies", "0")
        assert status == 0, err
        assert "internal error" not in err and "Traceback" not in err
        answers = out.split("\n")[:-1]
        assert len(answers) == ubgi_answers_owed(lines)
        for answer in answers:
            check_ubgi_answer(answer)
        reasons = err.splitlines()
        assert len(reasons) == answers.count("sorry")
        assert all(reason.startswith("ubgi: sorry: ") for reason in reasons)

    check()
