"""The balance chart is a real PNG of the asked size, in Discord's dark colours, by hands played, and winners
are drawn above losers."""

from __future__ import annotations

import io

from PIL import Image

from kwx.present.chart import BACKGROUND, PALETTE, Series, balance_chart, nice_ticks


def _open(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def _pixels_of(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 30) -> list[tuple[int, int]]:
    rgb = image.convert("RGB")
    width = rgb.size[0]
    r0, g0, b0 = colour
    raw = rgb.tobytes()
    return [(i % width, i // width) for i, (r, g, b) in enumerate(zip(raw[0::3], raw[1::3], raw[2::3]))
            if abs(r - r0) <= tolerance and abs(g - g0) <= tolerance and abs(b - b0) <= tolerance]


def test_chart_is_a_png_of_the_requested_size() -> None:
    series = [Series("阿丽", [(1, 8), (2, 4), (3, 20)])]
    png = balance_chart(series, title="余额走势 Balances", width=640, height=360)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = _open(png)
    assert (image.format, image.size) == ("PNG", (640, 360))


def test_a_winner_is_drawn_above_a_loser() -> None:
    hands = [1, 2, 3, 4, 5]
    winner = Series("winner", list(zip(hands, [10, 30, 20, 50, 80])))
    loser = Series("loser", list(zip(hands, [-10, -30, -20, -50, -80])))
    image = _open(balance_chart([winner, loser], width=800, height=450))
    up = _pixels_of(image, PALETTE[0])
    down = _pixels_of(image, PALETTE[1])
    assert up and down
    # compare the plotted lines in the right half (the legend squares sit at the bottom: leave them out)
    plot_up = [y for x, y in up if x > 500 and y < 330]
    plot_down = [y for x, y in down if x > 500 and y < 330]
    assert plot_up and plot_down
    assert max(plot_up) < min(plot_down)


def test_empty_chart_and_a_single_entry_still_render() -> None:
    for series in ([], [Series("solo", [(1, -3)])], [Series("cash", [(0, 5)])], [Series("zero", [])]):
        image = _open(balance_chart(series, title="t", empty_text="no entries"))
        assert image.size == (800, 450)


def test_at_most_ten_lines_and_long_names_do_not_break_it() -> None:
    many = [Series("名字很长的玩家" * 3 + str(i), [(1, i), (2, -i)]) for i in range(14)]
    assert _open(balance_chart(many)).size == (800, 450)


def test_ticks_are_round_and_cover_the_range() -> None:
    ticks = nice_ticks(-37, 112)
    assert ticks[0] <= -37 and ticks[-1] >= 112 and 0 in ticks
    steps = {b - a for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1 and steps.pop() in (10, 20, 25, 50, 100)
    assert nice_ticks(0, 0)[0] <= 0 <= nice_ticks(0, 0)[-1]


def test_the_chart_is_dark_and_each_line_ends_at_its_players_last_hand() -> None:
    """x counts hands: a player with 5 hands ends half way across from one with 10, whatever the dates."""
    ten = Series("ten", [(h, h) for h in range(1, 11)])
    five = Series("five", [(h, -h) for h in range(1, 6)])
    image = _open(balance_chart([ten, five], width=800, height=450))
    assert image.convert("RGB").getpixel((2, 2)) == BACKGROUND  # Discord's dark embed colour, not white
    assert sum(BACKGROUND) < 200
    right_ten = max(x for x, y in _pixels_of(image, PALETTE[0]) if y < 420)  # the legend is below 420
    right_five = max(x for x, y in _pixels_of(image, PALETTE[1]) if y < 420)
    left = 64
    assert abs((right_five - left) / (right_ten - left) - 0.5) < 0.05
