"""A picture of the board: SVG text, and PNG through matplotlib.

One drawing, two back ends. ``board_shapes`` lays the board out as a list of
plain shapes (rectangles, triangles, circles, text) in board units, and
``board_svg`` writes them as SVG while ``save_png`` / ``draw_on_axes`` hand
the same shapes to matplotlib, so the notebooks, ``tdgammon show POSITION
--svg out.svg`` and a PNG all show the same board.

The board is drawn from the side of the player on roll, as the text board of
``tdgammon.engine.display.render`` is: X (the mover, light checkers) moves from 24 down to 1
with its home board bottom right; O (the opponent, dark checkers) is at the
top right. Points 13-24 run along the top, 12-1 along the bottom (the
mover's numbering, written beside the points). X's checkers on the bar sit in
the top half of the bar (they enter into O's home board), O's in the bottom
half; borne-off checkers are stacked in the tray on the right (X's at the
bottom, O's at the top); the cube is on the left (middle when centred, on the
owner's side otherwise); the mover's dice, when rolled, lie in the right half.

Every checker is one ``<circle>`` with ``class="checker x"`` or ``"checker
o"`` and ``data-point`` (the mover's point number 1..24, or ``bar``); every
borne-off checker is a ``<rect class="off x|o">``. A point holding more than
five checkers squeezes them together and writes the count on the top one.
Tests read the picture back through these attributes.

This module needs no third-party package for SVG; matplotlib is imported only
by the PNG path (``save_png``, ``draw_on_axes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from tdgammon.engine.rules.board import MOVER_BAR, MOVER_OFF, OPPONENT_BAR, OPPONENT_OFF, pip_counts
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, Position

# ---------------------------------------------------------------- geometry (board units)

POINT_WIDTH = 40.0
RADIUS = 18.0
MARGIN = 12.0
CUBE_COLUMN = 56.0
"""Left strip holding the cube."""
TRAY = 56.0
"""Right strip holding the borne-off checkers."""
BAR = 44.0
FIELD = 400.0
"""Height of the playing field (both halves)."""
POINT_LENGTH = 165.0
LABEL_BAND = 20.0
"""Room for the point numbers above and below the field."""
INFO_BAND = 44.0
"""Room for the text lines under the board."""
STACK = 5
"""Checkers drawn at full spacing; more are squeezed into the same height."""

LEFT = MARGIN + CUBE_COLUMN
"""x of the left edge of the playing field."""
HALF = 6 * POINT_WIDTH
WIDTH = LEFT + HALF + BAR + HALF + TRAY + MARGIN
TOP = MARGIN + LABEL_BAND
HEIGHT = TOP + FIELD + LABEL_BAND + INFO_BAND
BOTTOM = TOP + FIELD
BAR_X = LEFT + HALF
TRAY_X = BAR_X + BAR + HALF

COLOURS = {
    "frame": "#5b3a1e",
    "field": "#e8d9b5",
    "dark_point": "#9c4a2f",
    "light_point": "#d9b98a",
    "bar": "#6e4526",
    "tray": "#6e4526",
    "x": "#f7f3ea",
    "x_edge": "#333333",
    "o": "#2b2b2b",
    "o_edge": "#000000",
    "x_text": "#222222",
    "o_text": "#f0f0f0",
    "label": "#222222",
    "cube": "#ffffff",
    "die": "#fdfdfd",
}

TOP_ROW = tuple(range(13, 25))
"""Mover's points along the top, left to right."""
BOTTOM_ROW = tuple(range(12, 0, -1))
"""Mover's points along the bottom, left to right."""


@dataclass(frozen=True)
class Shape:
    """One thing to draw, in board units (y grows downwards).

    kind: ``rect`` (x, y, w, h), ``polygon`` (points), ``circle`` (cx, cy, r)
    or ``text`` (x, y centre of the text, text, size, anchor start|middle|end).
    css: the SVG ``class``; data: ``data-*`` attributes (SVG only).
    """

    kind: str
    geometry: tuple
    fill: str = "none"
    stroke: str = "none"
    stroke_width: float = 1.0
    text: str = ""
    size: float = 12.0
    anchor: str = "middle"
    bold: bool = False
    css: str = ""
    data: dict = field(default_factory=dict)


def _point_x(point: int) -> float:
    """x of the left edge of a point's column (mover's numbering 1..24)."""
    row = TOP_ROW if point >= 13 else BOTTOM_ROW
    column = row.index(point)
    x = LEFT + column * POINT_WIDTH
    return x + BAR if column >= 6 else x


def _stack_centres(count: int, base: float, direction: float) -> list[float]:
    """y of each checker's centre, the first at the edge ``base``, going ``direction``."""
    step = 2 * RADIUS
    if count > STACK:
        step = (STACK - 1) * 2 * RADIUS / (count - 1)
    return [base + direction * (RADIUS + i * step) for i in range(count)]


def _checkers(count: int, cx: float, base: float, direction: float, side: str, where) -> list:
    shapes = []
    centres = _stack_centres(count, base, direction)
    for cy in centres:
        shapes.append(
            Shape(
                "circle",
                (cx, cy, RADIUS),
                COLOURS[side],
                COLOURS[side + "_edge"],
                1.5,
                css=f"checker {side}",
                data={"point": str(where)},
            )
        )
    if count > STACK:
        shapes.append(
            Shape(
                "text",
                (cx, centres[-1]),
                text=str(count),
                fill=COLOURS[side + "_text"],
                size=15,
                bold=True,
                css="count",
            )
        )
    return shapes


def _field_shapes() -> list[Shape]:
    shapes = [
        Shape("rect", (0, 0, WIDTH, HEIGHT), "#ffffff", css="background"),
        Shape(
            "rect",
            (LEFT - 6, TOP - 6, TRAY_X - LEFT + 12, FIELD + 12),
            COLOURS["frame"],
            css="frame",
        ),
        Shape("rect", (LEFT, TOP, HALF, FIELD), COLOURS["field"], css="field"),
        Shape("rect", (BAR_X + BAR, TOP, HALF, FIELD), COLOURS["field"], css="field"),
        Shape("rect", (BAR_X, TOP - 6, BAR, FIELD + 12), COLOURS["bar"], css="bar"),
        Shape("rect", (TRAY_X + 6, TOP - 6, TRAY - 6, FIELD + 12), COLOURS["tray"], css="tray"),
    ]
    for point in range(1, 25):
        x = _point_x(point)
        top = point >= 13
        base, tip = (TOP, TOP + POINT_LENGTH) if top else (BOTTOM, BOTTOM - POINT_LENGTH)
        colour = COLOURS["dark_point"] if point % 2 else COLOURS["light_point"]
        shapes.append(
            Shape(
                "polygon",
                ((x, base), (x + POINT_WIDTH, base), (x + POINT_WIDTH / 2, tip)),
                colour,
                css="point",
                data={"point": str(point)},
            )
        )
        label_y = TOP - 6 - LABEL_BAND / 2 if top else BOTTOM + 6 + LABEL_BAND / 2
        shapes.append(
            Shape(
                "text",
                (x + POINT_WIDTH / 2, label_y),
                text=str(point),
                fill=COLOURS["label"],
                size=12,
                css="label",
            )
        )
    return shapes


def _off_shapes(count: int, side: str) -> list[Shape]:
    """Borne-off checkers as thin bars in the tray: X from the bottom, O from the top."""
    shapes = []
    height, gap = 9.0, 2.0
    x = TRAY_X + 6 + (TRAY - 6 - 2 * RADIUS) / 2
    for i in range(count):
        if side == "x":
            y = BOTTOM - (i + 1) * (height + gap)
        else:
            y = TOP + gap + i * (height + gap)
        shapes.append(
            Shape(
                "rect",
                (x, y, 2 * RADIUS, height),
                COLOURS[side],
                COLOURS[side + "_edge"],
                1.0,
                css=f"off {side}",
            )
        )
    return shapes


def _cube_shapes(position: Position) -> list[Shape]:
    size = 38.0
    x = MARGIN + (CUBE_COLUMN - size) / 2 - 3
    if position.double_offered:
        value, y = 2 * position.cube_value, TOP + FIELD / 2 - size / 2
        x = BAR_X + BAR + HALF / 2 - size / 2
    else:
        value = position.cube_value
        if position.cube_owner == CUBE_CENTRED:
            y = TOP + FIELD / 2 - size / 2
        elif position.cube_owner == CUBE_MOVER:
            y = BOTTOM - size
        else:
            y = TOP
    text = "64" if value == 1 and position.cube_owner == CUBE_CENTRED else str(value)
    return [
        Shape("rect", (x, y, size, size), COLOURS["cube"], "#000000", 1.5, css="cube"),
        Shape(
            "text",
            (x + size / 2, y + size / 2),
            text=text,
            fill="#000000",
            size=17,
            bold=True,
            css="cube-value",
        ),
    ]


_PIPS = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def _dice_shapes(dice: tuple[int, int]) -> list[Shape]:
    size = 32.0
    y = TOP + FIELD / 2 - size / 2
    centre = BAR_X + BAR + HALF / 2
    shapes = []
    for i, value in enumerate(dice):
        x = centre - size - 6 if i == 0 else centre + 6
        shapes.append(
            Shape(
                "rect",
                (x, y, size, size),
                COLOURS["die"],
                "#000000",
                1.5,
                css="die",
                data={"value": str(value)},
            )
        )
        for dx, dy in _PIPS[value]:
            shapes.append(
                Shape(
                    "circle",
                    (x + size / 2 + dx * 8.5, y + size / 2 + dy * 8.5, 3.2),
                    "#000000",
                    css="pip",
                )
            )
    return shapes


def _info_shapes(position: Position, board: np.ndarray) -> list[Shape]:
    x_pips, o_pips = pip_counts(board)
    if position.is_money:
        score = "money game"
    else:
        crawford = ", Crawford" if position.crawford else ""
        score = (
            f"match to {position.match_length}{crawford}: "
            f"X {position.mover_score}, O {position.opponent_score}"
        )
    roll = ""
    if position.dice is not None:
        roll = f", rolled {position.dice[0]}-{position.dice[1]}"
    elif position.double_offered:
        roll = f", doubles to {2 * position.cube_value}"
    line1 = f"X (light) on roll{roll}    pips X {x_pips}, O {o_pips}"
    x_off, o_off = int(board[MOVER_OFF]), -int(board[OPPONENT_OFF])
    line2 = f"{score}    borne off X {x_off}, O {o_off}"
    y = BOTTOM + 6 + LABEL_BAND + 10
    return [
        Shape("text", (LEFT, y), text=line1, fill="#000000", size=13, anchor="start", css="info"),
        Shape(
            "text", (LEFT, y + 18), text=line2, fill="#000000", size=13, anchor="start", css="info"
        ),
    ]


def as_position(position) -> Position:
    """A Position from a Position, a ``(30,)`` board (mover's view) or a position string."""
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        from tdgammon.engine.formats.parse import parse_position

        return parse_position(position)
    return Position(board=np.asarray(position))


def board_shapes(position) -> list[Shape]:
    """The board as a list of Shapes (module docstring), back to front.

    position: a Position, a ``(30,)`` board in the mover's view, or any string
    ``tdgammon.engine.formats.parse_position`` reads (XGID, GNU Backgammon ID, FIBS).
    """
    position = as_position(position)
    board = np.asarray(position.board).astype(np.int64)
    shapes = _field_shapes()
    for point in range(1, 25):
        count = int(board[point])
        if count == 0:
            continue
        side = "x" if count > 0 else "o"
        cx = _point_x(point) + POINT_WIDTH / 2
        base, direction = (TOP, 1.0) if point >= 13 else (BOTTOM, -1.0)
        shapes += _checkers(abs(count), cx, base, direction, side, point)
    middle, bar_cx = TOP + FIELD / 2, BAR_X + BAR / 2
    if board[MOVER_BAR] > 0:
        shapes += _checkers(int(board[MOVER_BAR]), bar_cx, middle - 22, -1.0, "x", "bar")
    if board[OPPONENT_BAR] < 0:
        shapes += _checkers(-int(board[OPPONENT_BAR]), bar_cx, middle + 22, 1.0, "o", "bar")
    shapes += _off_shapes(int(board[MOVER_OFF]), "x")
    shapes += _off_shapes(-int(board[OPPONENT_OFF]), "o")
    if not (position.crawford and not position.is_money):
        shapes += _cube_shapes(position)
    if position.dice is not None:
        shapes += _dice_shapes(position.dice)
    shapes += _info_shapes(position, board)
    return shapes


# ---------------------------------------------------------------- SVG


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _svg_element(shape: Shape) -> str:
    attrs = []
    if shape.css:
        attrs.append(f'class="{escape(shape.css)}"')
    for key, value in shape.data.items():
        attrs.append(f'data-{key}="{escape(value)}"')
    paint = f'fill="{shape.fill}"'
    if shape.stroke != "none":
        paint += f' stroke="{shape.stroke}" stroke-width="{_fmt(shape.stroke_width)}"'
    extra = " ".join(attrs)
    g = shape.geometry
    if shape.kind == "rect":
        x, y, w, h = map(_fmt, g)
        return f'<rect {extra} x="{x}" y="{y}" width="{w}" height="{h}" {paint}/>'
    if shape.kind == "polygon":
        points = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in g)
        return f'<polygon {extra} points="{points}" {paint}/>'
    if shape.kind == "circle":
        cx, cy, r = map(_fmt, g)
        return f'<circle {extra} cx="{cx}" cy="{cy}" r="{r}" {paint}/>'
    if shape.kind == "text":
        x, y = map(_fmt, g)
        weight = ' font-weight="bold"' if shape.bold else ""
        return (
            f'<text {extra} x="{x}" y="{y}" font-size="{_fmt(shape.size)}"{weight} '
            f'text-anchor="{shape.anchor}" dominant-baseline="central" '
            f'fill="{shape.fill}">{escape(shape.text)}</text>'
        )
    raise ValueError(f"unknown shape kind {shape.kind!r}")


def board_svg(position, width: float | None = None) -> str:
    """The board as an SVG document (text). width: display width in pixels (default natural)."""
    shown = _fmt(width if width is not None else WIDTH)
    shown_height = _fmt((width if width is not None else WIDTH) * HEIGHT / WIDTH)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_fmt(WIDTH)} {_fmt(HEIGHT)}" '
        f'width="{shown}" height="{shown_height}" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
    )
    body = [_svg_element(shape) for shape in board_shapes(position)]
    return "\n".join([head, *body, "</svg>"]) + "\n"


def save_svg(position, path: str | Path) -> Path:
    """Write ``board_svg(position)`` to ``path`` atomically; returns the path.

    FormatError, nothing written, when ``path`` is a folder or an existing file that
    is not an SVG picture (an earlier picture may be replaced, nothing else)."""
    from tdgammon.models.atomic import atomic_write_bytes

    path = Path(path)
    if path.is_dir():
        raise FormatError(f"{path} is a folder; give a file name such as board.svg")
    if not path.parent.is_dir():
        raise FormatError(f"cannot write {path}: no folder {path.parent}")
    if path.exists():
        with open(path, "rb") as existing:
            head = existing.read(256).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
        if not head.startswith((b"<svg", b"<?xml")):
            raise FormatError(
                f"{path} exists and is not an SVG picture; it is left as it is (give another name)"
            )
    atomic_write_bytes(path, board_svg(position).encode("utf-8"))
    return path


class BoardPicture:
    """A board picture that Jupyter shows inline (``_repr_svg_``) and can save."""

    def __init__(self, position) -> None:
        self.position = as_position(position)

    @property
    def svg(self) -> str:
        return board_svg(self.position)

    def _repr_svg_(self) -> str:
        return self.svg

    def save_svg(self, path: str | Path) -> Path:
        return save_svg(self.position, path)

    def save_png(self, path: str | Path, dpi: int = 100) -> Path:
        return save_png(self.position, path, dpi)


def draw_board(position) -> BoardPicture:
    """The picture of ``position`` (shown inline in a notebook)."""
    return BoardPicture(position)


# ---------------------------------------------------------------- matplotlib


def draw_on_axes(ax, position) -> None:
    """Draw the board on a matplotlib Axes (y downwards, equal aspect, no axis lines)."""
    from matplotlib.patches import Circle, Polygon, Rectangle

    fig = ax.figure
    axes_width_in = fig.get_size_inches()[0] * ax.get_position().width
    points_per_unit = 72.0 * axes_width_in / WIDTH
    align = {"start": "left", "middle": "center", "end": "right"}
    for shape in board_shapes(position):
        g = shape.geometry
        edge = None if shape.stroke == "none" else shape.stroke
        style = {
            "facecolor": None if shape.fill == "none" else shape.fill,
            "edgecolor": edge,
            "linewidth": shape.stroke_width * points_per_unit if edge else 0,
        }
        if shape.kind == "rect":
            ax.add_patch(Rectangle((g[0], g[1]), g[2], g[3], **style))
        elif shape.kind == "polygon":
            ax.add_patch(Polygon(list(g), closed=True, **style))
        elif shape.kind == "circle":
            ax.add_patch(Circle((g[0], g[1]), g[2], **style))
        elif shape.kind == "text":
            ax.text(
                g[0],
                g[1],
                shape.text,
                color=shape.fill,
                fontsize=shape.size * points_per_unit,
                fontweight="bold" if shape.bold else "normal",
                ha=align[shape.anchor],
                va="center",
            )
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(HEIGHT, 0)
    ax.set_aspect("equal")
    ax.axis("off")


def board_figure(position, dpi: int = 100):
    """A matplotlib Figure holding only the board (natural size at ``dpi``)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH / 100, HEIGHT / 100), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    draw_on_axes(ax, position)
    return fig


def save_png(position, path: str | Path, dpi: int = 100) -> Path:
    """Write the board as a PNG through matplotlib; returns the path."""
    path = Path(path)
    board_figure(position, dpi).savefig(path, dpi=dpi)
    return path
