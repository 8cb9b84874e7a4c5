"""Each area's session fixtures live in its own module under tests/ so areas do not edit one file."""

pytest_plugins = ["tests.fixtures_ingest", "tests.fixtures_index", "tests.fixtures_qa"]
