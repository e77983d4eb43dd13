"""The .mat match format: round trips, a hand-written real-world file, bad files."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from tdgammon.engine.display.study import SAMPLE_MATCH
from tdgammon.engine.flow.game_records import ACT_MOVE
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import (
    MatFileError,
    check_name,
    format_mat,
    load_mat,
    position_ids,
    read_mat,
)
from tdgammon.engine.players.agents import PubevalAgent, RandomAgent
from tdgammon.engine.players.cube_actions import play_match
from tdgammon.engine.rules.errors import FormatError


def bot_match(settings: MatchSettings, seed: int) -> Match:
    match = Match(settings, names=("Random Rita", "pubeval"), seed=seed)
    play_match(match, [RandomAgent(seed, double_rate=0.2), PubevalAgent()])
    return match


def actions(match: Match) -> list:
    """Game histories without resign offers that the format cannot hold, dice sorted."""
    out = []
    for game in match.games:
        for a in game.history:
            if a.kind in ("resign", "reject", "accept"):
                continue
            dice = tuple(sorted(a.dice, reverse=True)) if a.dice else None
            out.append((a.seat, a.kind, dice, a.value))
        out.append(game.result)
    return out


@pytest.mark.parametrize(
    "settings",
    [
        MatchSettings(length=5),
        MatchSettings(length=7, crawford=False),
        MatchSettings(max_games=4),
        MatchSettings(max_games=3, beavers=True, jacoby=True, max_cube=64),
        MatchSettings(max_games=2, cube=False),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_written_and_read_back_is_identical(settings, seed):
    match = bot_match(settings, seed)
    text = format_mat(match, {"Site": "tdgammon test"})
    loaded = read_mat(text)
    assert format_mat(loaded.match, loaded.headers) == text
    assert loaded.match.scores == match.scores
    # the session length (max_games) is not part of the format
    assert replace(loaded.match.settings, max_games=match.settings.max_games) == match.settings
    assert actions(loaded.match) == actions(match)
    for original, copy in zip(match.games, loaded.match.games, strict=True):
        assert np.array_equal(original.board, copy.board)
        assert original.settings.crawford == copy.settings.crawford


def test_round_trip_with_beaver_raccoon_and_resignations():
    match = Match(MatchSettings(beavers=True, raccoons=True, max_games=3), names=("a", "b"))
    game = match.game
    game.opening_roll((3, 1))
    game.play_text("8/5 6/5")
    game.double()
    game.beaver()
    game.raccoon()
    game.take()  # cube 8, owned by seat 1 (the raccooner keeps it)
    game.roll((6, 4))
    game.play_text("24/14")
    game.offer_resignation(2)
    game.reject_resignation()
    game.roll((2, 1))
    game.play_text("13/11 6/5")
    game.offer_resignation(1, seat=0)
    game.accept_resignation()
    match.next_game()
    game = match.game
    game.opening_roll((2, 6))
    game.play_text("24/18 13/11")
    text = format_mat(match)
    assert "Beavers => 4" in text and "Raccoons => 8" in text and "Wins 8 points" in text
    assert "Beavers => 4                Raccoons => 8\n  3)  Takes" in text
    loaded = read_mat(text)
    assert format_mat(loaded.match) == text
    assert loaded.match.scores == (0, 8)
    # the unfinished second game is read back in progress
    assert not loaded.match.game.is_over and loaded.match.game.turn == 0


# docs/rules.md 5: a beaver may be refused. The records below, as tdgammon writes
# them (GNU Backgammon reads Beavers and Raccoons as further doubles): game 1, a
# refused beaver (the beaverer ann wins 2); game 2, a refused raccoon (the
# doubler ann wins 4); game 3, an accepted beaver, play going on at 4.
BEAVER_RECORD = """\
; [Player 1 "ann"]
; [Player 2 "bob"]
; [Crawford "On"]
; [Jacoby "Off"]
; [Beaver "On"]
; [CubeLimit "1024"]
; [Raccoon "On"]

 0 point match

 Game 1
 ann : 0                            bob : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Beavers => 4                Drops
      Wins 2 points

 Game 2
 ann : 2                            bob : 0
  1)                             31: 8/5 6/5
  2)  Doubles => 2                Beavers => 4
  3)  Raccoons => 8               Drops
      Wins 4 points

 Game 3
 ann : 6                            bob : 0
  1) 52: 13/8 13/11               Doubles => 2
  2)  Beavers => 4                Takes
  3)                             64: 24/14*
; game in progress

"""


def test_refused_beaver_and_raccoon_records_are_written_and_read_back():
    match = Match(MatchSettings(beavers=True, raccoons=True, max_games=3), names=("ann", "bob"))
    game = match.game
    game.opening_roll((3, 1))
    game.play_text("8/5 6/5")
    game.double(seat=1)
    game.beaver(seat=0)
    game.drop(seat=1)  # the doubler refuses the beaver
    match.next_game()
    game = match.game
    game.opening_roll((1, 3))
    game.play_text("8/5 6/5")
    game.double(seat=0)
    game.beaver(seat=1)
    game.raccoon(seat=0)
    game.drop(seat=1)  # the beaverer refuses the raccoon
    match.next_game()
    game = match.game
    game.opening_roll((5, 2))
    game.play_text("13/8 13/11")
    game.double(seat=1)
    game.beaver(seat=0)
    game.take(seat=1)  # the doubler accepts: play goes on at 4
    game.roll((6, 4))
    game.play_text("24/14")
    assert format_mat(match) == BEAVER_RECORD
    loaded = read_mat(BEAVER_RECORD)
    assert format_mat(loaded.match) == BEAVER_RECORD
    assert actions(loaded.match) == actions(match)
    first, second, third = loaded.match.games
    assert (first.result.winner, first.result.points, first.result.ended_by) == (0, 2, "drop")
    assert (second.result.winner, second.result.points) == (0, 4)
    assert third.cube_value == 4 and third.cube_owner == 0 and not third.is_over
    assert loaded.match.scores == (6, 0)


def test_gnubg_doubles_for_a_beaver_and_a_raccoon_are_read():
    """GNU Backgammon's export writes a beaver (and a raccoon) as one more double."""
    text = BEAVER_RECORD.replace("Beavers => 4", "Doubles => 4")
    text = text.replace("Raccoons => 8", "Doubles => 8")
    assert format_mat(read_mat(text).match) == BEAVER_RECORD


def test_a_roll_straight_after_a_beaver_is_read_as_accepted():
    """tdgammon wrote beavers that way before they could be refused."""
    text = BEAVER_RECORD.replace(
        "  2)  Beavers => 4                Takes\n  3)                             64: 24/14*",
        "  2)  Beavers => 4                64: 24/14*",
    )
    assert text != BEAVER_RECORD
    assert format_mat(read_mat(text).match) == BEAVER_RECORD
    # a raccoon too: the doubler (bob) rolls at once; read as the beaverer's take
    old = BEAVER_RECORD.replace(
        "  2)  Beavers => 4                Takes\n",
        "  2)  Beavers => 4                Raccoons => 8\n",
    )
    third = read_mat(old).match.games[2]
    assert [a.kind for a in third.history][-4:] == ["beaver", "raccoon", "take", "move"]
    assert third.cube_value == 8 and third.cube_owner == 1


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("  2)  Beavers => 4                Drops", "  2)  Beavers => 8", "cube would go to 4"),
        ("      Wins 2 points", "      Wins 1 point", "worth 2 points"),
        ("  2)  Beavers => 4                Drops", "  2)  Beavers => 4\n  3)  Drops", "decision"),
        ("  3)  Raccoons => 8               Drops", "  3)  Raccoons => 4", "cube would go to 8"),
    ],
)
def test_bad_beaver_records_are_rejected(old, new, message):
    assert old in BEAVER_RECORD
    with pytest.raises(MatFileError, match=rf"^line \d+: .*{message}"):
        read_mat(BEAVER_RECORD.replace(old, new, 1))


def test_real_world_sample_with_comments_and_odd_spacing_loads():
    loaded = load_mat(SAMPLE_MATCH)
    match = loaded.match
    assert match.names == ("alice", "bob")
    assert match.settings.length == 3
    assert loaded.headers["Site"] == "FIBS" and loaded.headers["EventDate"] == "2019.03.02"
    assert [g.result.points for g in match.games] == [1, 2, 1, 1]
    assert [g.result.ended_by for g in match.games] == [
        "drop",
        "resignation",
        "resignation",
        "drop",
    ]
    assert [g.settings.crawford for g in match.games] == [False, False, True, False]
    assert match.scores == (2, 3) and match.winner == 1
    # written again in the canonical layout, it reads back identically
    text = format_mat(match, loaded.headers)
    assert format_mat(read_mat(text).match, loaded.headers) == text


def test_write_and_load_file(tmp_path):
    match = bot_match(MatchSettings(length=3), 5)
    path = tmp_path / "m.mat"
    path.write_text(format_mat(match), encoding="utf-8")
    assert load_mat(path).match.scores == match.scores


def test_positions_export_xgid_and_gnubg_id():
    loaded = load_mat(SAMPLE_MATCH)
    ids = position_ids(loaded.match)
    first = ids[0]
    assert first["game"] == 1 and first["action"] == ACT_MOVE
    assert first["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:3:10"
    assert first["gnubg"].startswith("4HPwATDgc/ABMA:")
    assert len(ids) == sum(len(g.history) for g in loaded.match.games)
    crawford = [entry for entry in ids if entry["game"] == 3]
    assert all(entry["xgid"].split(":")[7] == "1" for entry in crawford)


GOOD = (SAMPLE_MATCH).read_text()


def corrupt(line_no: int, new: str | None) -> str:
    lines = GOOD.splitlines()
    if new is None:
        del lines[line_no - 1]
    else:
        lines[line_no - 1] = new
    return "\n".join(lines) + "\n"


def line_of(text: str) -> int:
    for number, line in enumerate(GOOD.splitlines(), 1):
        if line.startswith(text):
            return number
    raise AssertionError(text)


@pytest.mark.parametrize(
    "line_text, replacement, message",
    [
        ("  1) 31: 8/5 6/5", "  1) 31: 8/2 6/5                    64: 24/18 13/9", "illegal play"),
        ("  1) 31: 8/5 6/5", "  1) 33: 8/5 6/5                    64: 24/18 13/9", "opening roll"),
        (
            "  2) 52: 13/8",
            "  2) 52: 13/8 13/11                  Doubles => 4",
            "cube would go to 2",
        ),
        ("  3)  Drops", "  3)  Takes  Drops  Takes", "more than two"),
        ("  3)  Drops", "  4)  Drops", "expected move number 3"),
        (" 3 point match", " three point match", "match length"),
        (" Game 2", " Game 7", "expected game 2"),
        (" alice : 2", " alice : 1                          bob : 1", "score line says 1-1"),
        (
            "  1) 62:  24/18",
            "  1) 62: 24/18 13/11   11: 6/5 6/5 8/7 8/7 Doubles => 2",
            "more than two",
        ),
        ("  2) 44: 25/21", "  2) 44: 25/21 21/17* 13/9 13/9    Doubles => 2", "Crawford"),
        ("  3)  Doubles => 2    Takes", "  3)  Doubles => 2    Beavers => 4", "not allowed"),
        ("  1) 31: 8/5 6/5", "  1) 31: 8/5 6/5 @@@", "is not a move"),
        ("  1) 31: 8/5 6/5", "  1) 70: 13/6 text    31: 8/5 6/5", "not understood: '70: 13/6"),
        ("                                      Wins 1 point and", "  Wins 7 points", "worth 1"),
    ],
)
def test_malformed_files_are_rejected_with_the_line_number(line_text, replacement, message):
    number = line_of(line_text)
    with pytest.raises(MatFileError, match=rf"^line {number}: .*({message})"):
        read_mat(corrupt(number, replacement))


def test_missing_result_before_next_game():
    number = line_of("      Wins 2 points")  # a resignation: nothing else ends game 2
    with pytest.raises(MatFileError, match="no result"):
        read_mat(corrupt(number, None))


def test_not_a_mat_file():
    with pytest.raises(MatFileError, match="^line 1: expected the match length"):
        read_mat("hello world\n")
    with pytest.raises(MatFileError, match="no match length"):
        read_mat("; only a comment\n")
    assert issubclass(MatFileError, FormatError)


def test_random_corruption_never_crashes():
    """Any damage gives MatFileError (with a line number) or a file that still reads."""
    rng = np.random.default_rng(11)
    lines = GOOD.splitlines()
    junk = ["", "x", "99)", " Game", "Wins", "31:", "/", "*", ":", "=>", "0", "\t"]
    for _ in range(300):
        damaged = list(lines)
        number = int(rng.integers(len(damaged)))
        line = damaged[number]
        cut = int(rng.integers(len(line) + 1))
        damaged[number] = line[:cut] + junk[int(rng.integers(len(junk)))] + line[cut + 1 :]
        try:
            read_mat("\n".join(damaged))
        except MatFileError as error:
            assert str(error).startswith("line ")


# ------------------------------------------------------------ adversarial review (issue 19)


def test_a_game_resigned_before_its_first_move_reads_back():
    match = Match(MatchSettings(max_games=2), names=("a", "b"))
    match.game.opening_roll((6, 2))
    match.game.offer_resignation(3)  # after the opening roll, before any move
    match.game.accept_resignation()
    text = format_mat(match)
    assert " Game 1\n a : 0                              b : 0\n" in text
    assert text.endswith("\n                                  Wins 3 points\n\n")
    loaded = read_mat(text)
    assert format_mat(loaded.match) == text and loaded.match.scores == (0, 3)
    assert loaded.match.game.result.ended_by == "resignation"
    assert [e["action"] for e in position_ids(match)] == ["resign", "accept"]
    assert [e["action"] for e in position_ids(loaded.match)] == ["resign", "accept"]


AUTO_RECORD = """\
; [Player 1 "a"]
; [Player 2 "b"]
; [Crawford "On"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [CubeLimit "1024"]
; [AutoDoubles "2"]

 0 point match

 Game 1
 a : 0                              b : 0
  1)  Doubles => 2
  2)  Doubles => 4
  3) 31: 8/5 6/5                  Doubles => 8
  4)  Takes
; game in progress

"""


def test_automatic_doubles_are_written_as_doubles_before_the_first_roll():
    # docs/rules.md 1: "Each tie on the opening roll doubles the cube (still
    # centred) before the re-roll, up to a set limit": three ties, two doubles.
    match = Match(MatchSettings(auto_doubles=2, max_games=2), names=("a", "b"))
    game = match.game
    for tie in ((4, 4), (2, 2), (5, 5)):
        game.opening_roll(tie)
    game.opening_roll((3, 1))
    game.play_text("8/5 6/5")
    game.double(seat=1)
    game.take(seat=0)
    assert format_mat(match) == AUTO_RECORD
    loaded = read_mat(AUTO_RECORD).match.game
    assert (loaded.cube_value, loaded.cube_owner, loaded.auto_doubles_done) == (8, 0, 2)
    assert actions(read_mat(AUTO_RECORD).match) == actions(match)
    first = position_ids(match)[0]  # the opening move, on a cube of 4 (XGID field 2)
    assert first["xgid"].split(":")[1] == "2"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('; [AutoDoubles "2"]', '; [AutoDoubles "1"]', "line 14: no automatic double to 4"),
        ("  2)  Doubles => 4", "  2)  Doubles => 8", "line 14: .* takes the cube to 4, not 8"),
        ('; [AutoDoubles "2"]', '; [CubeLimit "2"]', "line 14: no automatic double to 4"),
    ],
)
def test_automatic_doubles_the_settings_do_not_allow_are_refused(old, new, message):
    text = AUTO_RECORD.replace(old, new)
    if new.startswith("; [CubeLimit"):
        text = text.replace('; [CubeLimit "1024"]\n', '; [AutoDoubles "2"]\n')
    with pytest.raises(MatFileError, match=rf"^{message}"):
        read_mat(text)


def test_every_truncation_of_a_record_is_an_error_or_whole_games():
    """A file cut short at any line, or inside one of the last lines, is a
    MatFileError naming the line, or reads back as its finished games only:
    a game with no result must end with the in-progress line that play writes."""
    match = bot_match(MatchSettings(max_games=3, beavers=True), 2)
    unfinished = Match(MatchSettings(beavers=True), names=match.names, seed=3)
    unfinished.game.opening_roll((6, 5))
    unfinished.game.play_text("24/13")
    for record in (format_mat(match), format_mat(unfinished)):
        read_mat(record)  # whole, it reads
        lines = record.splitlines(keepends=True)
        cuts = [len("".join(lines[:n])) for n in range(len(lines))]
        cuts += range(len(record) - 120, len(record) - 2)
        for cut in cuts:
            try:
                loaded = read_mat(record[:cut])
            except MatFileError as error:
                assert re.match(r"^line \d+: ", str(error)), error
                continue
            games = loaded.match.games
            whole = format_mat(loaded.match) == record
            assert whole or all(g.is_over for g in games if g.history), (cut, record[:cut])


def test_load_mat_names_the_file_and_the_line_of_a_truncated_file(tmp_path):
    path = tmp_path / "cut.mat"
    path.write_text(BEAVER_RECORD.replace("; game in progress\n", ""), encoding="utf-8")
    with pytest.raises(MatFileError) as error:
        load_mat(path)
    message = str(error.value)
    assert message.startswith(f"{path}: line 28: game 3 has no result") and "cut short" in message
    with pytest.raises(MatFileError, match=rf"^{re.escape(str(tmp_path))}/none.mat: line 0: "):
        load_mat(tmp_path / "none.mat")


@pytest.mark.parametrize(
    "old, new, message",
    [
        (" Game 2", " Game " + "9" * 5000, "the game number 999999999... is too large"),
        (" 3 point match", " " + "7" * 4400 + " point match", "the match length 77"),
        ("  3)  Drops", "  3)  Doubles => " + "2" * 4400, "the cube 222222222... is too large"),
        ("  3)  Drops", "  " + "3" * 4500 + ")  Drops", "the move number"),
        ("      Wins 2 points", "      Wins " + "1" * 4400 + " points", "the points won"),
        (" alice : 2", " alice : " + "2" * 4400 + "    bob : 1", "a score 222"),
        ('; [Crawford "On"]', '; [CubeLimit "' + "8" * 4400 + '"]', r"\[CubeLimit\] 888"),
    ],
)
def test_huge_numbers_are_a_clear_error_with_the_line(old, new, message):
    number = line_of(old)
    with pytest.raises(MatFileError, match=rf"^line {number}: {message}"):
        read_mat(corrupt(number, new))


@pytest.mark.parametrize(
    "names",
    [
        ("1) x", "; y"),
        ("a : 3", "Game 2"),
        (" lead", "trail "),
        ("Wins 1 point", 'q"uote"]'),
        ("12", "0 point match"),
        ("名前", "ünï cödé"),
    ],
)
def test_names_that_look_like_record_lines_read_back(names):
    match = bot_match(MatchSettings(length=3), 1)
    match.names = names
    text = format_mat(match)
    loaded = read_mat(text).match
    assert loaded.names == names and format_mat(loaded) == text


@pytest.mark.parametrize(
    "name", ["a\nb", "a\tb", "a\rb", "x\u2028y", "x\x85y", "x\ud800", "", "  "]
)
def test_names_a_record_cannot_hold_are_refused(name):
    with pytest.raises(FormatError, match="player name"):
        check_name(name)
    match = Match(names=(name, "b"))
    with pytest.raises(FormatError, match="player name"):
        format_mat(match)
