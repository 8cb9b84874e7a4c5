"""`python -m duocthu_desktop.app`."""

from duocthu_desktop.app.main import main

raise SystemExit(main())
