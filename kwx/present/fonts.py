"""A CJK font for the pictures that write Chinese (the 中 and 发 tiles, charts, the review's images), found once.

The pictures never depend on one: without a font the tiles draw 中 and 发 as strokes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache

from PIL import ImageFont

FontSpec = tuple[str, int]  # font file, face index inside a .ttc
_FONT_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
)


@lru_cache(maxsize=1)
def find_cjk_font() -> FontSpec | None:
    """A font that has 中 and 发: $KWX_CJK_FONT, then known Noto/WenQuanYi paths, then `fc-list :lang=zh`."""
    paths = [os.environ["KWX_CJK_FONT"]] if os.environ.get("KWX_CJK_FONT") else []
    paths += [p for p in _FONT_CANDIDATES if os.path.isfile(p)]
    if not paths and shutil.which("fc-list"):
        try:
            out = subprocess.run(
                ["fc-list", ":lang=zh", "file"], capture_output=True, text=True, timeout=10
            ).stdout
            paths += sorted({line.split(":")[0].strip() for line in out.splitlines() if line.strip()})
        except (OSError, subprocess.SubprocessError):
            pass
    for path in paths:
        spec = _simplified_face(path)
        if spec is not None:
            return spec
    return None


def _simplified_face(path: str) -> FontSpec | None:
    """The face of a font collection meant for simplified Chinese (发 differs between SC and JP forms)."""
    faces: list[tuple[int, str]] = []
    for index in range(16):
        try:
            font = ImageFont.truetype(path, 20, index=index)
        except OSError:
            break
        faces.append((index, " ".join(part for part in font.getname() if part)))  # (family, style), either may be None
    if not faces:
        return None
    for index, name in faces:
        if " SC" in name or "Micro Hei" in name or "Zen Hei" in name:
            return path, index
    return path, faces[0][0]
