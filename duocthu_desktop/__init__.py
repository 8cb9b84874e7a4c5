"""duocthu-desktop: an offline, cited clinical reference over Dược thư Quốc gia Việt Nam 2018.

The core (everything in this package except `duocthu_desktop.app`, the window) imports no Qt; a test enforces it.
"""

import os as _os

__version__ = "0.1.0"

# No telemetry from any dependency, set before any of them loads: onnxruntime (which chromadb or transformers
# may load) writes a device id and queued events under ~/.cache/Microsoft unless ORT_DISABLE_TELEMETRY is set;
# chromadb and the Hugging Face libraries each have their own switch.
for _name, _value in (("ORT_DISABLE_TELEMETRY", "1"), ("ANONYMIZED_TELEMETRY", "False"),
                      ("HF_HUB_DISABLE_TELEMETRY", "1"), ("DO_NOT_TRACK", "1")):
    _os.environ.setdefault(_name, _value)

from duocthu_desktop.bundled import go_offline as _go_offline  # noqa: E402 - after the defaults above

_go_offline()  # a frozen build forces the Hugging Face libraries offline: nothing is fetched at start
