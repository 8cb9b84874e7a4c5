"""duocthu-desktop: an offline, cited clinical reference over Dược thư Quốc gia Việt Nam 2018.

The core (everything in this package except `duocthu_desktop.app`, the window) imports no Qt; a test enforces it.
"""

__version__ = "0.1.0"
