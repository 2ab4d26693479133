"""Draw the site's app icons (the web app manifest's): a die showing five, in the favicon's
colours. Run it again after changing the drawing, and commit the PNGs it writes:

    .venv/bin/python tools/make_icons.py

``icon-N.png`` (purpose ``any``): the die on a transparent ground. ``maskable-N.png``
(purpose ``maskable``): the pips on a full-bleed ground, kept inside the centre circle of
80% that every platform's mask leaves visible.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "src" / "dicehall" / "server" / "web" / "static"
ICONS = OUT / "icons"
BLUE = (29, 79, 145, 255)
WHITE = (255, 255, 255, 255)
SIZES = (192, 512)
#: Drawn this many times larger, then scaled down: smooth edges without an anti-aliasing API.
SCALE = 4


def _pips(draw: ImageDraw.ImageDraw, size: int, spread: float, radius: float) -> None:
    """Five pips around the centre: ``spread`` and ``radius`` are shares of ``size``."""
    middle = size / 2
    for dx, dy in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)):
        x = middle + dx * spread * size
        y = middle + dy * spread * size
        r = radius * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=WHITE)


def die(size: int) -> Image.Image:
    """The die alone, on a transparent ground (purpose ``any``)."""
    big = size * SCALE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    margin = 0.06 * big
    draw.rounded_rectangle(
        (margin, margin, big - margin, big - margin), radius=0.19 * big, fill=BLUE
    )
    _pips(draw, big, spread=0.25, radius=0.095)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def maskable(size: int) -> Image.Image:
    """The pips on a full-bleed ground (purpose ``maskable``): the outer pips reach
    0.2 * sqrt(2) + 0.075 = 0.36 of the size from the centre, inside the safe 0.4."""
    big = size * SCALE
    image = Image.new("RGBA", (big, big), BLUE)
    _pips(ImageDraw.Draw(image), big, spread=0.2, radius=0.075)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        die(size).save(ICONS / f"icon-{size}.png", optimize=True)
        maskable(size).save(ICONS / f"maskable-{size}.png", optimize=True)
        print(f"wrote icon-{size}.png and maskable-{size}.png in {ICONS}")


if __name__ == "__main__":
    main()
