""".mat files as other programs write them: GNU Backgammon's export, eXtreme
Gammon's, hand edits (line endings, encodings, spacing), and the rolls a
player resigned after.

The GNU Backgammon texts follow its ``ExportGameJF`` (export.c) column by
column: no ``Player`` tags (the names come from the score line, written
``" %-31s%s : %d"``), a space after every move, a left-column drop written
with the winner's ``Wins`` on the same line, a resignation's ``Wins`` with no
blank line after it, no ``and the match``.
"""

from __future__ import annotations

import codecs

import pytest

from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_BEAVER,
    ACT_DOUBLE,
    ACT_DROP,
    ACT_MOVE,
    ACT_RESIGN,
    ACT_TAKE,
)
from tdgammon.engine.flow.matfile import MatFileError, format_mat, load_mat, read_mat


def lines(*rows: str) -> str:
    """A .mat text from its lines (kept exact: trailing spaces matter here)."""
    return "\n".join(rows) + "\n"


def results(match) -> list[tuple]:
    """(winner, points, ended_by, Crawford game) of every game."""
    return [
        (g.result.winner, g.result.points, g.result.ended_by, g.settings.crawford)
        for g in match.games
    ]


def history(game) -> list[tuple]:
    """(seat, kind, dice larger first, pairs or cube value) of every action of a game."""
    return [
        (
            a.seat,
            a.kind,
            tuple(sorted(a.dice, reverse=True)) if a.dice else None,
            a.moves if a.kind == ACT_MOVE else a.value,
        )
        for a in game.history
    ]


# A 3-point match exported by GNU Backgammon: a left-column drop (Wins on the
# same line), a resignation written after the left move on its line, one by the
# right player (Wins at column 6), the Crawford game, a right-column drop and a
# gammon resigned (Wins at column 34) that ends the match.
GNU_EXPORT = lines(
    '; [Site "GNU Backgammon"]',
    '; [EventDate "2024.05.01"]',
    "",
    " 3 point match",
    "",
    " Game 1",
    " Zoë Müller : 0                 bob smith : 0",
    "  1) 31: 8/5 6/5                  Doubles => 2",
    "  2)  Drops                       Wins 1 point ",
    "",
    " Game 2",
    " Zoë Müller : 0                 bob smith : 1",
    "  1)                             42: 8/4 6/4 ",
    "  2) 64: 24/18 13/9               Wins 1 point",
    " Game 3",
    " Zoë Müller : 0                 bob smith : 2",
    "  1) 31: 8/5 6/5                 62: 24/18 13/11 ",
    "      Wins 1 point",
    " Game 4",
    " Zoë Müller : 1                 bob smith : 2",
    "  1) 31: 8/5 6/5                 42: 8/4 6/4 ",
    "  2)  Doubles => 2                Drops",
    "      Wins 1 point",
    "",
    " Game 5",
    " Zoë Müller : 2                 bob smith : 2",
    "  1)                             42: 8/4 6/4 ",
    "                                  Wins 2 points",
)

GNU_RESULTS = [
    (1, 1, "drop", False),
    (1, 1, "resignation", False),
    (0, 1, "resignation", True),
    (0, 1, "drop", False),
    (1, 2, "resignation", False),
]


def check_gnu_export(loaded) -> None:
    """The match of ``GNU_EXPORT``, action by action."""
    match = loaded.match
    assert match.names == ("Zoë Müller", "bob smith")
    assert match.settings.length == 3
    assert loaded.headers == {"Site": "GNU Backgammon", "EventDate": "2024.05.01"}
    assert results(match) == GNU_RESULTS
    assert match.scores == (2, 4) and match.winner == 1
    first, second, third, fourth, fifth = match.games
    assert history(first) == [
        (0, ACT_MOVE, (3, 1), ((8, 5), (6, 5))),
        (1, ACT_DOUBLE, None, 2),
        (0, ACT_DROP, None, 0),
    ]
    assert history(second) == [
        (1, ACT_MOVE, (4, 2), ((8, 4), (6, 4))),
        (0, ACT_MOVE, (6, 4), ((24, 18), (13, 9))),
        (0, ACT_RESIGN, None, 1),
        (1, ACT_ACCEPT, None, 1),
    ]
    assert [a.kind for a in third.history][-2:] == [ACT_RESIGN, ACT_ACCEPT]
    assert third.history[-2].seat == 1
    assert history(fourth)[-2:] == [(0, ACT_DOUBLE, None, 2), (1, ACT_DROP, None, 0)]
    assert history(fifth)[-2:] == [(0, ACT_RESIGN, None, 2), (1, ACT_ACCEPT, None, 2)]


def test_gnubg_export_layout_loads():
    check_gnu_export(read_mat(GNU_EXPORT))


def test_gnubg_export_written_again_loads_back_the_same():
    loaded = read_mat(GNU_EXPORT)
    text = format_mat(loaded.match, loaded.headers)
    again = read_mat(text)
    assert results(again.match) == GNU_RESULTS
    assert again.match.names == loaded.match.names
    assert format_mat(again.match, again.headers) == text


@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda t: t.encode("utf-8"), id="utf-8"),
        pytest.param(lambda t: t.replace("\n", "\r\n").encode("utf-8"), id="crlf"),
        pytest.param(lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"), id="bom"),
        pytest.param(lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode(), id="bom-crlf"),
        pytest.param(lambda t: t.replace("\n", "\r").encode("utf-8"), id="cr"),
        pytest.param(lambda t: t.encode("latin-1"), id="latin-1"),
        pytest.param(lambda t: t.rstrip("\n").encode("utf-8"), id="no-final-newline"),
        # a Windows editor's "Unicode" save: UTF-16 with its byte-order mark
        pytest.param(lambda t: t.replace("\n", "\r\n").encode("utf-16"), id="utf-16"),
        pytest.param(lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"), id="utf-16-be"),
    ],
)
def test_line_endings_and_encodings(tmp_path, encode):
    path = tmp_path / "gnubg.mat"
    path.write_bytes(encode(GNU_EXPORT))
    check_gnu_export(load_mat(path))
    from tdgammon.engine.analysis.match_analysis import _read_text

    assert "point match" in _read_text(path)  # the analysis decodes the file the same way


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.replace("    ", "\t"), id="tabs"),
        pytest.param(lambda t: t.replace("\n", "   \n"), id="trailing-spaces"),
        pytest.param(lambda t: t.replace("\n  ", "\n\n  "), id="blank-lines-between-moves"),
        pytest.param(lambda t: t.replace(" Game 3\n", "\n\n Game 3\n\n"), id="blank-lines-at-game"),
        pytest.param(lambda t: t.replace("\n\n Game 1", "\n; a comment\n Game 1"), id="comment"),
        pytest.param(lambda t: t.replace(" 3 point match", "3 Point Match"), id="length-line"),
        pytest.param(lambda t: t.replace("\n Game", "\nGame"), id="game-unindented"),
    ],
)
def test_spacing_and_blank_lines_do_not_matter(edit):
    check_gnu_export(read_mat(edit(GNU_EXPORT)))


# eXtreme Gammon: Player tags (names with spaces), its other tags, the length
# line unindented, "Game N " with a space after it, dice as rolled (15:), the
# right column further right, the bar as a word, and a Wins on a numbered line
# (in the right column: Ken takes the beaver, then resigns).
XG_EXPORT = lines(
    '; [Site "eXtreme Gammon"]',
    '; [Match ID "238991235"]',
    '; [Player 1 "Ken Y"]',
    '; [Player 2 "XG Roller+"]',
    '; [Player 1 Elo "1600.00/0"]',
    '; [Player 2 Elo "2000.00/0"]',
    '; [EventDate "2022.12.24"]',
    '; [EventTime "21.23"]',
    '; [Variation "Backgammon"]',
    '; [Unrated "Off"]',
    '; [Jacoby "On"]',
    '; [Beaver "On"]',
    '; [CubeLimit "1024"]',
    "",
    "0 point match",
    "",
    "Game 1 ",
    "Ken Y : 0                              XG Roller+ : 0 ",
    " 1) 64: 24/18 13/9                    26: 24/16*",
    " 2) 43: 13/10 bar/21                  51: 13/8 6/5",
    " 3)  Doubles => 2                      Beavers => 4",
    " 4)  Takes                             Wins 4 points",
    "",
    "Game 2",
    "Ken Y : 0                              XG Roller+ : 4",
    " 1) 31: 8/5 6/5                       ",
    " 2)  Wins 1 point",
)


def test_xg_export_layout_loads():
    loaded = read_mat(XG_EXPORT)
    match = loaded.match
    assert match.names == ("Ken Y", "XG Roller+")
    assert match.settings.length == 0
    assert match.settings.jacoby and match.settings.beavers
    assert match.settings.max_cube == 1024
    assert loaded.headers["Match ID"] == "238991235"
    assert loaded.headers["Player 1 Elo"] == "1600.00/0"
    first, second = match.games
    assert history(first)[:2] == [
        (0, ACT_MOVE, (6, 4), ((24, 18), (13, 9))),
        (1, ACT_MOVE, (6, 2), ((24, 16),)),
    ]
    seat, kind, dice, pairs = history(first)[2]
    assert (seat, kind, dice, sorted(pairs)) == (0, ACT_MOVE, (4, 3), [(13, 10), (25, 21)])
    assert history(first)[3:6] == [
        (1, ACT_MOVE, (5, 1), ((13, 8), (6, 5))),
        (0, ACT_DOUBLE, None, 2),
        (1, ACT_BEAVER, None, 4),
    ]
    assert history(first)[6:] == [
        (0, ACT_TAKE, None, 0),
        (0, ACT_RESIGN, None, 1),
        (1, ACT_ACCEPT, None, 1),
    ]
    assert (first.result.winner, first.result.points, first.result.ended_by) == (
        1,
        4,
        "resignation",
    )
    assert history(second) == [
        (0, ACT_MOVE, (3, 1), ((8, 5), (6, 5))),
        (1, ACT_RESIGN, None, 1),
        (0, ACT_ACCEPT, None, 1),
    ]
    assert match.scores == (1, 4)


@pytest.mark.parametrize(
    "written",
    ["43: 13/10 bar/21", "43: bar/21 13/10", "43: 25/21 13/10", "43: 13/10 25/21"],
)
def test_bar_as_word_or_number_in_any_order(written):
    text = XG_EXPORT.replace("43: 13/10 bar/21", written)
    played = history(read_mat(text).match.games[0])[2]
    assert played[:3] == (0, ACT_MOVE, (4, 3))
    assert sorted(played[3]) == [(13, 10), (25, 21)]


# GNU Backgammon writes a roll its player resigned after as the dice alone:
# here bob (right) rolls 5-1, which he could play, and resigns; the Wins of
# alice (left) follows at column 6.
ROLL_THEN_RESIGN = lines(
    " 1 point match",
    "",
    " Game 1",
    " alice : 0                      bob : 0",
    "  1)                             62: 24/18 13/11 ",
    "  2) 62: 13/7* 24/22             51: ",
    "      Wins 1 point",
)


def test_a_roll_the_roller_resigned_after_is_read():
    match = read_mat(ROLL_THEN_RESIGN).match
    game = match.games[0]
    assert history(game) == [
        (1, ACT_MOVE, (6, 2), ((24, 18), (13, 11))),
        (0, ACT_MOVE, (6, 2), ((13, 7), (24, 22))),
        (1, ACT_RESIGN, None, 1),
        (0, ACT_ACCEPT, None, 1),
    ]
    assert (game.result.winner, game.result.points, game.result.ended_by) == (0, 1, "resignation")
    assert match.scores == (1, 0) and match.winner == 0


@pytest.mark.parametrize("unrecorded", ["???", "????"])
def test_xg_question_marks_are_a_roll_the_roller_resigned_after(unrecorded):
    match = read_mat(ROLL_THEN_RESIGN.replace("51: ", f"51: {unrecorded}")).match
    assert history(match.games[0])[-2:] == [(1, ACT_RESIGN, None, 1), (0, ACT_ACCEPT, None, 1)]
    assert match.scores == (1, 0)


def test_a_left_roll_resigned_after_with_wins_on_its_line():
    """GNU Backgammon: ``%3d) %-3s`` for the dice, then the Wins after 24 spaces."""
    text = ROLL_THEN_RESIGN.replace(
        "  2) 62: 13/7* 24/22             51: \n      Wins 1 point",
        "  2) 62:                         Wins 1 point",
    )
    game = read_mat(text).match.games[0]
    assert history(game)[1:] == [(0, ACT_RESIGN, None, 1), (1, ACT_ACCEPT, None, 1)]
    assert game.result.winner == 1


def test_a_roll_that_cannot_be_played_is_still_a_dance():
    """bob on the bar, both numbers blocked: ``66:`` (or eXtreme Gammon's
    ``Cannot Move``) is his turn passing, and play goes on."""
    text = lines(
        " 0 point match",
        "",
        " Game 1",
        " alice : 0                      bob : 0",
        "  1) 31: 8/5 6/5                62: 24/18 13/11",
        "  2) 61: 13/7* 8/7              66: ",
        "  3) 55: 13/8 13/8 6/1 6/1      65: Cannot Move",
        "  4) 21: 8/6 7/6",
        "; game in progress",
    )
    game = read_mat(text).match.games[0]
    assert history(game)[3] == (1, ACT_MOVE, (6, 6), ())
    assert history(game)[5] == (1, ACT_MOVE, (6, 5), ())
    assert history(game)[6] == (0, ACT_MOVE, (2, 1), ((8, 6), (7, 6)))
    assert not game.is_over


@pytest.mark.parametrize(
    "after",
    [
        pytest.param("  3) 62: 13/7 13/11\n      Wins 1 point\n", id="a move"),
        pytest.param("  3)  Doubles => 2\n", id="a double"),
        pytest.param("; game in progress\n", id="in progress"),
        pytest.param("", id="end of file"),
        pytest.param("\n Game 2\n alice : 0    bob : 1\n", id="next game"),
    ],
)
def test_an_unplayed_roll_not_followed_by_wins_is_refused(after):
    """A move left out of the record: the error names the roll's line."""
    text = ROLL_THEN_RESIGN.replace(" 1 point match", " 3 point match").replace(
        "      Wins 1 point\n", after
    )
    with pytest.raises(MatFileError, match=r"^line 6: bob: '51:': no move written, but the dice"):
        read_mat(text)


def test_large_match_length_and_header_tags():
    text = GNU_EXPORT.replace(" 3 point match", " 25 point match").replace(
        '; [Site "GNU Backgammon"]',
        '; [Site "GNU Backgammon"]\n; [Variation "Backgammon"]\n; [CubeLimit "1024"]\n'
        '; [Jacoby "On"]\n; [Crawford "On"]',
    )
    match = read_mat(text).match
    assert match.settings.length == 25
    assert not match.settings.jacoby  # money play only
    assert [r[:3] for r in results(match)] == [r[:3] for r in GNU_RESULTS]
    assert not any(g.settings.crawford for g in match.games)
    assert match.winner is None and match.scores == (2, 4)
