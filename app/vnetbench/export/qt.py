"""The little Qt plumbing the drawing exporters share: an application, bytes out of paint devices.

Painting text needs an application object (for fonts). Inside the GUI one exists already. From the CLI or a
test we start one, on the ``offscreen`` platform when there is no display, so no window or display is
needed. It is a QApplication, not just a QGuiApplication: a test suite (or a GUI) that shares the process
afterwards can then still build widgets; Qt allows only one application object per process.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QRectF, QSize
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from . import style

_app: QCoreApplication | None = None


def ensure_app() -> None:
    global _app
    if QCoreApplication.instance() is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication

        _app = QApplication([])


def open_buffer() -> tuple[QByteArray, QBuffer]:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    return data, buffer


#: Qt's PNG "quality" picks the zlib level; 80 is light compression: on large diagrams it encodes ~30%
#: faster than the default and the file comes out no larger.
PNG_QUALITY = 80


def image_bytes(image: QImage, fmt: str = "PNG") -> bytes:
    data, buffer = open_buffer()
    if not image.save(buffer, fmt, PNG_QUALITY if fmt == "PNG" else -1):
        raise OSError(f"Qt could not encode a {image.width()}x{image.height()} image as {fmt}")
    buffer.close()
    return bytes(data.data())


def svg_in_pixels(data: bytes, width: float, height: float) -> bytes:
    """Qt states an SVG's size in millimetres; pixels let browsers, wikis and the report show it at its
    natural size."""
    text = re.sub(r'<svg width="[^"]*" height="[^"]*"', f'<svg width="{math.ceil(width)}" '
                  f'height="{math.ceil(height)}"', bytes(data).decode("utf-8"), count=1)
    return text.encode("utf-8")


def picture_bytes(width: float, height: float, paint: Callable[[QPainter], None], fmt: str,
                  scale: float = 1.0, title: str = "") -> bytes:
    """Run ``paint`` (in a ``width`` x ``height`` coordinate space) into SVG or PNG bytes."""
    ensure_app()
    if fmt == "svg":
        data, buffer = open_buffer()
        gen = QSvgGenerator()
        gen.setOutputDevice(buffer)
        gen.setSize(QSize(math.ceil(width), math.ceil(height)))
        gen.setViewBox(QRectF(0, 0, width, height))
        gen.setTitle(title)
        p = QPainter(gen)
        paint(p)
        p.end()
        buffer.close()
        return svg_in_pixels(data.data(), width, height)
    image = QImage(math.ceil(width * scale), math.ceil(height * scale), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDotsPerMeterX(round(96 * scale / 0.0254))   # shown at its layout's size by viewers that read it
    image.setDotsPerMeterY(round(96 * scale / 0.0254))
    image.fill(QColor("#ffffff"))
    p = QPainter(image)
    p.scale(scale, scale)
    paint(p)
    p.end()
    return image_bytes(image)


def font(px: int, bold: bool = False) -> QFont:
    """A font sized in pixels (QPdfWriter would scale point sizes by its own resolution)."""
    f = QFont(style.FONT_FAMILY)
    f.setPixelSize(px)
    f.setBold(bold)
    return f
