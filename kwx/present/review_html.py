"""复盘 as one self-contained HTML page: anyone can open it in a browser, with no network.

The tile faces are inlined (PNG data URIs of kwx.present.art's tiles, one CSS class per kind); the review's
frames, the text of each step (kwx.present.review_text, one language) and where each viewer button leads are
embedded as JSON; a small script draws the step shown and moves with the buttons or the keys (← → Home End,
m: my next decision, x: next big mistake).
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Sequence
from typing import Any

from kwx.engine.review import Review
from kwx.engine.tiles import Tile
from kwx.present.art import to_png
from kwx.present.hand_row import tile_image
from kwx.present.i18n import tr
from kwx.present.review_text import ReviewText

TILE_PX = 64  # inlined tile height: the page shows them at 40 px and less
MOVES = ("first", "prev", "next", "last", "mine", "mistake")


def _with_code(line: str) -> str:
    """A catalog line, escaped, its `code` spans (a command, the AI's name) set as code as Discord shows them."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(line))


def _tile_css() -> str:
    rules = []
    for tile in Tile:
        data = base64.b64encode(to_png(tile_image(int(tile), TILE_PX))).decode("ascii")
        rules.append(f".t-{tile.compact}{{background-image:url(data:image/png;base64,{data})}}")
    return "\n".join(rules)


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def review_page(review: Review, names: Sequence[str], lang: str, *, hand_id: int | None = None,
                start: int | None = None) -> str:
    """The page, opening at frame `start` (default: the first)."""
    words = ReviewText(review, names, lang, hand_id=hand_id)
    frames = []
    for k, frame in enumerate(review.frames):
        frames.append({
            "lines": words.frame_lines(k),
            "to_act": list(frame.to_act),
            "pending": None if frame.pending is None else frame.pending[0],
            "end": frame.action is None,
            "seats": [{"hand": [x.compact for x in view.concealed],
                       "drawn": view.drawn.compact if view.drawn is not None else None,
                       "melds": [[m.tile.compact] * m.size for m in view.melds],
                       "pond": [[x.compact, claimed] for x, claimed in view.discards],
                       # worded as the text and the picture word it, in the page's language
                       "waits": tr("review.declared", lang, waits=words.tiles(view.waits)) if view.declared else None}
                      for view in frame.seats],
            "go": {move: review.step(k, move) for move in MOVES},
            "big": bool((d := review.decision_at(k)) is not None and d.big and d.counted),
        })
    data = {"frames": frames, "names": list(names), "dealer": review.dealer,
            "winners": list(review.result.winners),
            "win_tile": review.win_tile.compact if review.win_tile is not None else None,
            "start": min(max(start or 0, 0), len(frames) - 1)}
    labels = {"first": "|◀ " + tr("review.button.first", lang), "prev": "◀", "next": "▶",
              "last": tr("review.button.last", lang) + " ▶|", "mine": tr("review.button.mine", lang),
              "mistake": tr("review.button.mistake", lang)}
    buttons = "".join(f'<button id="go-{m}" data-move="{m}">{html.escape(labels[m])}</button>' for m in MOVES)
    summary = "".join(f"<li>{_with_code(line)}</li>" for line in words.summary_lines())
    lang_tag = "en" if words.lang == "en" else "zh-CN"
    return _PAGE.format(lang=lang_tag, title=html.escape(words.title()), summary=summary, buttons=buttons,
                        tiles=_tile_css(), data=_script_json(data), dealer=html.escape(tr("review.dealer_mark", lang)))


_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ margin: 0; padding: 16px; background: #183c2c; color: #f0f0e8; font: 15px/1.45 system-ui, sans-serif; }}
h1 {{ font-size: 20px; margin: 0 0 8px; }}
ul.summary {{ margin: 0 0 12px; padding-left: 18px; color: #d8e4dc; }}
nav {{ position: sticky; top: 0; background: #183c2c; padding: 6px 0; z-index: 1; }}
nav button {{ font: inherit; margin: 0 4px 4px 0; padding: 4px 10px; border-radius: 6px; border: 1px solid #8fb39f;
  background: #24553f; color: #f0f0e8; cursor: pointer; }}
nav button:disabled {{ opacity: .4; cursor: default; }}
#status {{ color: #b0c4b8; margin-left: 8px; }}
.seat {{ margin: 10px 0 14px; }}
.name {{ font-weight: 600; font-size: 17px; }}
.name.acting {{ color: #ffd65c; }}
.waits {{ color: #ffd65c; margin-left: 12px; font-weight: 400; font-size: 14px; }}
.row {{ display: flex; flex-wrap: wrap; align-items: flex-end; gap: 1px; margin: 4px 0; }}
.t {{ display: inline-block; width: 30px; height: 40px; background-size: contain; background-repeat: no-repeat;
  background-position: center; position: relative; }}
.pond .t {{ width: 22px; height: 29px; }}
.gap {{ width: 14px; }}
.t.claimed {{ opacity: .45; border-bottom: 3px solid #c81e2d; }}
.t.pending {{ border-bottom: 3px solid #ffd65c; }}
.t.win {{ border-bottom: 4px solid #e0a800; }}
.meld + .t.win, .t.win:not(.drawn) {{ margin-left: 14px; }}
#lines p {{ margin: 2px 0; }}
#lines p.big {{ color: #ffd65c; font-weight: 600; }}
{tiles}
</style>
</head>
<body>
<h1>{title}</h1>
<ul class="summary">{summary}</ul>
<nav>{buttons}<span id="status"></span></nav>
<div id="seats"></div>
<div id="lines"></div>
<script id="review-data" type="application/json">{data}</script>
<script>
(function () {{
  var data = JSON.parse(document.getElementById("review-data").textContent);
  var at = data.start;
  function tile(code, cls) {{
    var el = document.createElement("i");
    el.className = "t t-" + code + (cls ? " " + cls : "");
    el.title = code;
    return el;
  }}
  function show(k) {{
    at = k;
    var f = data.frames[k], seats = document.getElementById("seats");
    seats.textContent = "";
    f.seats.forEach(function (s, i) {{
      var box = document.createElement("div"), name = document.createElement("div");
      box.className = "seat"; box.dataset.seat = i;
      name.className = "name" + (f.to_act.indexOf(i) >= 0 ? " acting" : "");
      name.textContent = (f.to_act.indexOf(i) >= 0 ? "▶ " : "") + data.names[i] + (i === data.dealer ? "{dealer}" : "");
      if (s.waits) {{ var w = document.createElement("span"); w.className = "waits"; w.textContent = s.waits;
        name.appendChild(w); }}
      box.appendChild(name);
      var hand = document.createElement("div"); hand.className = "row hand";
      var rest = s.hand.slice();
      if (s.drawn) {{ rest.splice(rest.indexOf(s.drawn), 1); }}
      rest.forEach(function (c) {{ hand.appendChild(tile(c)); }});
      var won = f.end && data.win_tile && data.winners.indexOf(i) >= 0;
      if (s.drawn) {{ var g = document.createElement("span"); g.className = "gap"; hand.appendChild(g);
        hand.appendChild(tile(s.drawn, won ? "drawn win" : "drawn")); }}
      s.melds.forEach(function (m) {{ var g = document.createElement("span"); g.className = "gap"; hand.appendChild(g);
        m.forEach(function (c) {{ hand.appendChild(tile(c, "meld")); }}); }});
      if (won && !s.drawn) {{ hand.appendChild(tile(data.win_tile, "win")); }}
      box.appendChild(hand);
      var pond = document.createElement("div"); pond.className = "row pond";
      s.pond.forEach(function (p, j) {{
        var last = j === s.pond.length - 1 && f.pending === i;
        pond.appendChild(tile(p[0], p[1] ? "claimed" : last ? "pending" : ""));
      }});
      box.appendChild(pond);
      seats.appendChild(box);
    }});
    var lines = document.getElementById("lines");
    lines.textContent = "";
    f.lines.forEach(function (text, j) {{
      if (j >= 1 && j <= 3) {{ return; }}
      var p = document.createElement("p");
      if (text.indexOf("❗") === 0) {{ p.className = "big"; }}
      p.textContent = text; lines.appendChild(p);
    }});
    document.getElementById("status").textContent = (k + 1) + " / " + data.frames.length;
    Object.keys(f.go).forEach(function (m) {{
      document.getElementById("go-" + m).disabled = f.go[m] === k;
    }});
    document.body.dataset.frame = k;
  }}
  document.querySelectorAll("nav button").forEach(function (b) {{
    b.addEventListener("click", function () {{ show(data.frames[at].go[b.dataset.move]); }});
  }});
  var keys = {{ ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", m: "mine", x: "mistake" }};
  document.addEventListener("keydown", function (e) {{
    var move = keys[e.key];
    if (move) {{ e.preventDefault(); show(data.frames[at].go[move]); }}
  }});
  show(at);
}})();
</script>
</body>
</html>
"""
